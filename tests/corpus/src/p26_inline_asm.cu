// corpus-nvrtc: 124 118
// Inline PTX: byte permutes, special registers, scoped .reg/.pred blocks, memory barriers, and
// every integer/float literal form PTX accepts (decimal, hex, octal, binary, the U suffix,
// negative values, 0f/0F single and 0d/0D double bit patterns), which nvcc itself never writes.
__global__ void asm_ops(unsigned* out, const unsigned* in) {
  unsigned v = in[threadIdx.x], r, lane;
  asm("prmt.b32 %0, %1, 0, 0x0123;" : "=r"(r) : "r"(v));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned long long clk;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk));
  unsigned p;
  asm("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tselp.u32 %0, 1, 0, p;\n}" : "=r"(p) : "r"(v));
  asm volatile("membar.gl;");
  out[threadIdx.x] = r + lane + (unsigned)clk + p;
}

__global__ void literal_forms(const unsigned* in, unsigned* out, float* f, double* d) {
  unsigned x = in[threadIdx.x], a, b, c, e;
  int s;
  asm("add.u32 %0, %1, 0777;" : "=r"(a) : "r"(x));                 // octal
  asm("or.b32 %0, %1, 0b1011001;" : "=r"(b) : "r"(x));              // binary
  asm("and.b32 %0, %1, 0xFFFF00FFU;" : "=r"(c) : "r"(x));           // hex, unsigned suffix
  asm("xor.b32 %0, %1, 0B11;" : "=r"(e) : "r"(x));                  // binary, capital prefix
  asm("add.s32 %0, %1, -0x10;" : "=r"(s) : "r"((int)x));            // negative hex
  asm("{\n\t.reg .u32 t;\n\tmul.lo.u32 t, %1, 010;\n\tadd.u32 %0, t, 1U;\n\t}" : "=r"(a) : "r"(a));
  float g, h;
  asm("mov.f32 %0, 0F3FC00000;" : "=f"(g));                         // 1.5f, capital F
  asm("fma.rn.f32 %0, %1, 0f40490FDB, 0fBF800000;" : "=f"(h) : "f"(g));   // pi, -1
  double k;
  asm("mul.f64 %0, %1, 0D400921FB54442D18;" : "=d"(k) : "d"((double)x));   // pi, capital D
  asm("add.f64 %0, %0, 0d3FF0000000000000;" : "+d"(k));
  unsigned long long big;
  asm("mov.b64 %0, 0x8000000000000000;" : "=l"(big));
  asm("add.u64 %0, %0, 18446744073709551615U;" : "+l"(big));
  out[threadIdx.x] = a + b + c + e + (unsigned)s + (unsigned)big;
  f[threadIdx.x] = g + h;
  d[threadIdx.x] = k;
}
