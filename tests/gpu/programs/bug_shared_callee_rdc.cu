// cucatch-expect: out-of-bounds write 4 kernel=two_tiles object=lo space=shared
// cucatch-link: -rdc=true
// cucatch-sources: lib/shared_callee.cu
// bug_shared_callee_neighbour across compilation units (relocatable code): a device function of
// another unit writes one element past the first of two __shared__ arrays it is given (into the
// second, or past the block's shared memory, where ptxas lays the first out last). The call goes to the function's entry point that takes the pointer's bounds, so the
// overflow is reported against the array, named by the caller's unit, not against the block's
// whole shared window.
#include "common.h"
__device__ void fill_row(float* row, int n, float v);
__global__ void two_tiles(const float* in, float* out, int n) {
  __shared__ float lo[32];
  __shared__ float hi[32];
  int t = threadIdx.x;
  hi[t] = in[t];
  __syncthreads();
  if (t == 0) fill_row(lo, n, 1.0f);  // n = 32: lo[32] is hi[0]
  __syncthreads();
  out[t] = lo[t % 31] + hi[t];
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(float)));
  CHECK(cudaMalloc(&out, 32 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(float)));
  two_tiles<<<1, 32>>>(in, out, 32);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
