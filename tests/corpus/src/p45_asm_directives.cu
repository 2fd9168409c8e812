// corpus-nvrtc: 124 118
// PTX constructs nvcc only writes when asked through inline asm: an indirect branch through a
// label table, scoped cache qualifiers, cache policies, the dynamic shared memory size.
__global__ void asm_directives(const float* in, float* out, int sel) {
  extern __shared__ float dyn[];
  unsigned dsize, r;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsize));
  asm volatile(
      "{\n\t"
      ".reg .u32 idx;\n\t"
      "and.b32 idx, %1, 1;\n\t"
      "ts: .branchtargets L_zero, L_one;\n\t"
      "brx.idx idx, ts;\n"
      "L_zero:\n\t"
      "mov.u32 %0, 10;\n\t"
      "bra.uni L_done;\n"
      "L_one:\n\t"
      "mov.u32 %0, 20;\n"
      "L_done:\n\t"
      "}"
      : "=r"(r)
      : "r"(sel));
  float v;
  asm volatile("ld.global.L1::no_allocate.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(in + threadIdx.x));
#if __CUDA_ARCH__ >= 800
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float w;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(w) : "l"(in + threadIdx.x), "l"(policy));
  v += w;
#endif
  dyn[threadIdx.x] = v;
  out[threadIdx.x] = dyn[threadIdx.x] + (float)(dsize + r) + __ldcs(in + 1) ;
  __stcg(out + 1, v);
}
