// cucatch-expect: clean
// Managed memory written by the host, updated by kernels, read back by the host.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void step(int* a, const int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 3 + b[n - 1 - i];
}

int main() {
  const int n = 1001;
  int *a, *b;
  CHECK(cudaMallocManaged(&a, n * sizeof(int)));
  CHECK(cudaMallocManaged(&b, n * sizeof(int)));
  for (int i = 0; i < n; ++i) { a[i] = i % 10; b[i] = i % 7; }
  long long s = 0;
  for (int round = 0; round < 3; ++round) {
    step<<<(n + 255) / 256, 256>>>(a, b, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) s += a[i] % 1000;
    b[round] += 5;  // the host touches it between launches
  }
  printf("checksum %lld a[n-1] %d\n", s, a[n - 1]);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
