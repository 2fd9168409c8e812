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
