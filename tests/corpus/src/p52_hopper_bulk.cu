// sm_90 asynchronous data movement written out in inline PTX: an mbarrier with a transaction
// count, a bulk global->shared copy completing on it, a bulk shared->global store in a bulk group,
// proxy fences, elect.sync, programmatic dependent launch controls and a vector half reduction
// (the one place this corpus gets a .v8). Older targets compile a plain copy.
#include <cuda_fp16.h>

__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned phase) {
  asm volatile(
      "{\n\t"
      ".reg .pred ready;\n"
      "WAIT_AGAIN:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n\t"
      "@!ready bra WAIT_AGAIN;\n\t"
      "}" ::"r"(bar), "r"(phase) : "memory");
}

__global__ void bulk_roundtrip(const float* __restrict__ in, float* __restrict__ out, __half* hsum) {
  __shared__ alignas(128) float buf[1024];
  const float* src = in + (size_t)blockIdx.x * 1024;
  float* dst = out + (size_t)blockIdx.x * 1024;
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(8) unsigned long long bar;
  unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned buf_addr = (unsigned)__cvta_generic_to_shared(buf);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  unsigned leader;
  asm volatile(
      "{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(leader));
  if (threadIdx.x < 32 && leader) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(buf_addr), "l"(src), "r"(4096), "r"(bar_addr) : "memory");
  }
  mbar_wait(bar_addr, 0);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] = buf[i] * 2.0f + 1.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(buf_addr), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    unsigned short h[8];
    for (int i = 0; i < 8; ++i) h[i] = __half_as_ushort(__float2half(buf[i]));
    asm volatile("red.global.add.noftz.v8.f16 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 ::"l"(hsum), "h"(h[0]), "h"(h[1]), "h"(h[2]), "h"(h[3]), "h"(h[4]), "h"(h[5]), "h"(h[6]), "h"(h[7])
                 : "memory");
    float4 q = make_float4(buf[8], buf[9], buf[10], buf[11]);
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(out), "f"(q.x), "f"(q.y), "f"(q.z), "f"(q.w) : "memory");
  }
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#else
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) dst[i] = buf[1023 - i] * 2.0f + 1.0f;
  if (threadIdx.x == 0) atomicAdd(hsum, __float2half(buf[0]));
#endif
}

// The same barrier used as a phase counter by all threads of the block.
__global__ void mbarrier_phases(int* data, int rounds) {
  __shared__ int slots[256];
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(8) unsigned long long bar;
  unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(blockDim.x) : "memory");
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    slots[threadIdx.x] = data[r * blockDim.x + threadIdx.x] + r;
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar_addr) : "memory");
    mbar_wait(bar_addr, r & 1);
    data[r * blockDim.x + threadIdx.x] = slots[(threadIdx.x + 1) % blockDim.x];
  }
  if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar_addr) : "memory");
#else
  for (int r = 0; r < rounds; ++r) {
    slots[threadIdx.x] = data[r * blockDim.x + threadIdx.x] + r;
    __syncthreads();
    data[r * blockDim.x + threadIdx.x] = slots[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
  }
#endif
}
