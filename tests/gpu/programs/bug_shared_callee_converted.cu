// cucatch-expect: out-of-bounds write 4 kernel=three_tiles object=lo space=shared
// A device function that every caller gives a __shared__ array: nvcc converts the pointer to a
// shared address inside the function (cvta.to.shared) and its stores are shared-space stores,
// which used to be checked only against the block's whole shared window. The callers pass the
// array's bounds with the pointer, and the function's shared accesses are checked against
// them: the store one past the first array, into the next, is reported against that array.
#include "common.h"
__device__ __noinline__ void fill(float* row, int n, float v) {
  for (int i = 0; i <= n; ++i) row[i] = v + i;  // cucatch-bug-line
}
__global__ void three_tiles(const float* in, float* out, int n) {
  __shared__ float lo[32];
  __shared__ float mid[32];
  __shared__ float hi[32];
  int t = threadIdx.x;
  hi[t] = in[t];
  mid[t] = in[t];
  __syncthreads();
  if (t == 0) fill(lo, n, 1.0f);        // n = 32: lo[32] is past lo, in the next array
  if (t == 1) fill(hi, n - 1, 2.0f);    // in bounds
  __syncthreads();
  out[t] = lo[t % 31] + mid[t] + hi[t];
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(float)));
  CHECK(cudaMalloc(&out, 32 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(float)));
  three_tiles<<<1, 32>>>(in, out, 32);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
