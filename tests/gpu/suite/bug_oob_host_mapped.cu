// cucatch-expect: out-of-bounds read 4 kernel=copy_from_host memory=host-mapped
// Mapped pinned host memory (cudaHostAlloc + cudaHostGetDevicePointer) read by the
// kernel; the last thread reads one float past the end of the 1000-byte buffer.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void copy_from_host(const float* src, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) dst[i] = src[i];  // cucatch-bug-line
}

int main() {
  const int n = 250;  // 1000 bytes
  float *h, *d_src, *dst;
  CHECK(cudaHostAlloc(&h, n * sizeof(float), cudaHostAllocMapped));
  for (int i = 0; i < n; ++i) h[i] = float(i);
  CHECK(cudaHostGetDevicePointer(&d_src, h, 0));
  CHECK(cudaMalloc(&dst, 256 * sizeof(float)));
  copy_from_host<<<(n + 128) / 128, 128>>>(d_src, dst, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
