// cucatch-expect: out-of-bounds atomic 4 kernel=histogram object=bins space=shared
// A block-local histogram in shared memory whose bin index is one too large for one value: the
// atomic lands in the next __shared__ array.
#include "common.h"
__global__ void histogram(const int* data, int n, unsigned* global_bins) {
  __shared__ unsigned bins[32];
  __shared__ unsigned spill[32];
  int t = threadIdx.x;
  if (t < 32) bins[t] = spill[t] = 0;
  __syncthreads();
  for (int i = t; i < n; i += blockDim.x) atomicAdd(&bins[data[i] / 8], 1u);  // cucatch-bug-line
  __syncthreads();
  if (t < 32) atomicAdd(&global_bins[t], bins[t] + spill[t]);
}
int main() {
  int h[1024];
  for (int i = 0; i < 1024; ++i) h[i] = i % 256;
  h[500] = 256;  // bin 32 of 32
  int* data;
  unsigned* bins;
  CHECK(cudaMalloc(&data, sizeof h));
  CHECK(cudaMalloc(&bins, 32 * sizeof(unsigned)));
  CHECK(cudaMemcpy(data, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, 32 * sizeof(unsigned)));
  histogram<<<1, 128>>>(data, 1024, bins);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
