// cucatch-expect: out-of-bounds write 4 kernel=fill_dynamic window=shared
// A device function that is not inlined reads a generic pointer from memory, turns it into a
// 32-bit shared address (__cvta_generic_to_shared) and stores through it with st.shared: the
// address is of unknown origin there (a pointer handed over as a parameter would carry its
// callers' bounds: bug_shared_callee_converted), so it is checked against the block's shared
// memory, which ends with the 1000 bytes of dynamic shared memory this launch has. The store to
// element 250 is past it.
#include "common.h"
__device__ __noinline__ void store_shared(float* const* slot, int i, float v) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(*slot + i));
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");  // cucatch-bug-line
}
__global__ void fill_dynamic(float* out, float** slots, int n) {
  __shared__ float first[8];
  extern __shared__ float buf[];
  if (threadIdx.x == 0) {
    slots[0] = first;
    slots[1] = buf;
  }
  __syncthreads();
  if (threadIdx.x < 8) store_shared(&slots[0], threadIdx.x, 0.0f);
  for (int i = threadIdx.x; i < n; i += blockDim.x) store_shared(&slots[1], i, 1.0f * i);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = buf[0] + first[0];
}
int main() {
  float* out;
  float** slots;
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMalloc(&slots, 2 * sizeof(float*)));
  fill_dynamic<<<1, 32, 1000>>>(out, slots, 251);  // 250 floats fit
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
