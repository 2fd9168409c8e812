// cucatch-expect: out-of-bounds write 4 kernel=two_tiles object=lo space=shared
// A device function that is not inlined writes one element past the end of the first of two
// __shared__ arrays it is given a pointer to: the store lands in the second array, inside the
// block's shared memory, where neither the GPU nor a check against the whole shared window
// would see anything. The kernel passes the array's bounds with the pointer, and the callee
// checks against them.
#include "common.h"
__device__ __noinline__ void fill(float* row, int n, float v) {
  for (int i = 0; i <= n; ++i) row[i] = v + i;  // cucatch-bug-line
}
__global__ void two_tiles(const float* in, float* out, int n) {
  __shared__ float lo[32];
  __shared__ float hi[32];
  int t = threadIdx.x;
  hi[t] = in[t];
  __syncthreads();
  if (t == 0) fill(lo, n, 1.0f);  // n = 32: lo[32] is hi[0]
  if (t == 1) fill(out, 8, 2.0f);
  __syncthreads();
  out[32 + t] = lo[t % 31] + hi[t];
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(float)));
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(float)));
  two_tiles<<<1, 32>>>(in, out, 32);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
