// cucatch-expect: clean
// Mapped pinned host memory (cudaHostAlloc + cudaHostGetDevicePointer) read and written
// by a kernel and by the host; also plain pinned memory used by cudaMemcpy.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void combine(const int* host_in, int* host_out, const int* dev, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) host_out[i] = host_in[i] * 2 + dev[n - 1 - i];
}

int main() {
  const int n = 250;  // 1000 bytes
  int *hin, *hout, *din, *dout, *dev, *pinned;
  CHECK(cudaHostAlloc(&hin, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&hout, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
  for (int i = 0; i < n; ++i) { hin[i] = i % 31; pinned[i] = i % 5; }
  CHECK(cudaHostGetDevicePointer(&din, hin, 0));
  CHECK(cudaHostGetDevicePointer(&dout, hout, 0));
  CHECK(cudaMalloc(&dev, n * sizeof(int)));
  CHECK(cudaMemcpy(dev, pinned, n * sizeof(int), cudaMemcpyHostToDevice));
  combine<<<1, 256>>>(din, dout, dev, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long s = 0;
  for (int i = 0; i < n; ++i) s += (long long)hout[i] * (i + 1);
  printf("checksum %lld\n", s);
  CHECK(cudaFreeHost(hin));
  CHECK(cudaFreeHost(hout));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(dev));
  return 0;
}
