// cucatch-expect: out-of-bounds write 4 kernel=fill_dynamic window=shared
// A device function that is not inlined turns the generic pointer it is given into a 32-bit
// shared address (__cvta_generic_to_shared) and stores through it with st.shared: the address is
// of unknown origin there (it is called for two arrays), so it is checked against the block's
// shared memory, which ends with the 1000 bytes of dynamic shared memory this launch has. The store to element 250 is past it.
#include "common.h"
__device__ __noinline__ void store_shared(float* p, int i, float v) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p + i));
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");  // cucatch-bug-line
}
__global__ void fill_dynamic(float* out, int n) {
  __shared__ float first[8];
  extern __shared__ float buf[];
  // (Two arrays, so that nvcc cannot specialize the function for one.)
  if (threadIdx.x < 8) store_shared(first, threadIdx.x, 0.0f);
  for (int i = threadIdx.x; i < n; i += blockDim.x) store_shared(buf, i, 1.0f * i);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = buf[0] + first[0];
}
int main() {
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  fill_dynamic<<<1, 32, 1000>>>(out, 251);  // 250 floats fit
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
