// sm_90a-only instructions (guarded by __CUDA_ARCH_FEAT_SM90_ALL, so the sm_90 and older builds
// keep only the fallback): a warp-specialised kernel whose producer warpgroup gives registers
// back (setmaxnreg.dec) and whose consumer warpgroups take them (setmaxnreg.inc) and run an
// asynchronous warpgroup MMA on shared-memory descriptors.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long smem_desc(const void* p) {
  unsigned long long addr = (unsigned long long)__cvta_generic_to_shared(p);
  unsigned long long d = (addr & 0x3FFFF) >> 4;   // start address, 16-byte units
  d |= 1ull << 16;                                 // leading byte offset
  d |= 64ull << 32;                                // stride byte offset
  d |= 1ull << 62;                                 // 128-byte swizzle
  return d;
}

__global__ void __launch_bounds__(384, 1) warp_specialized_gemm(const __half* a, const __half* b, float* c) {
  __shared__ alignas(1024) __half sa[64 * 16];
  __shared__ alignas(1024) __half sb[32 * 16];
  int wg = threadIdx.x / 128;
  for (int i = threadIdx.x; i < 64 * 16; i += blockDim.x) sa[i] = a[blockIdx.x * 64 * 16 + i];
  for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x) sb[i] = b[i];
  __syncthreads();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  float d[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) d[i] = 0.f;
  unsigned long long da = smem_desc(sa), db = smem_desc(sb);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n\t"
      ".reg .pred scale_d;\n\t"
      "setp.ne.b32 scale_d, %18, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, scale_d, 1, 1, 0, 1;\n\t"
      "}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(0));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  int t = threadIdx.x - 128;
#pragma unroll
  for (int i = 0; i < 16; ++i) c[(blockIdx.x * 256 + t) * 16 + i] = d[i];
#else
  if (wg == 0) return;
  int t = threadIdx.x - 128;
  for (int i = 0; i < 16; ++i) {
    float s = 0.f;
    for (int k = 0; k < 16; ++k) s += __half2float(sa[(t % 64) * 16 + k]) * __half2float(sb[(i * 2 + t / 128) * 16 + k]);
    c[(blockIdx.x * 256 + t) * 16 + i] = s;
  }
#endif
}
