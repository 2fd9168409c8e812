// cucatch-expect: out-of-bounds atomic 4 kernel=histogram
// One key equals the number of bins, so one thread's atomicAdd hits bins[nbins].
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void histogram(const int* keys, int n, unsigned* bins, unsigned* previous) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) previous[i] = atomicAdd(&bins[keys[i]], 1u);  // cucatch-bug-line
}

int main() {
  const int nbins = 250;  // 1000 bytes
  const int n = 1024;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % nbins;
  h[777] = nbins;  // the bad key
  int* keys;
  unsigned *bins, *previous;
  CHECK(cudaMalloc(&keys, sizeof(h)));
  CHECK(cudaMalloc(&bins, nbins * sizeof(unsigned)));
  CHECK(cudaMalloc(&previous, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(keys, h, sizeof(h), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, nbins * sizeof(unsigned)));
  histogram<<<n / 256, 256>>>(keys, n, bins, previous);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
