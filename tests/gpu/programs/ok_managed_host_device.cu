// cucatch-expect: clean
#include "common.h"
__global__ void inc(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += i;
}
int main() {
  const int n = 10000;
  int* p;
  CHECK(cudaMallocManaged(&p, n * sizeof(int)));
  for (int i = 0; i < n; ++i) p[i] = 1;
  inc<<<(n + 255) / 256, 256>>>(p, n);
  CHECK(cudaDeviceSynchronize());
  long s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  for (int i = 0; i < n; ++i) p[i] = 2;
  inc<<<(n + 255) / 256, 256>>>(p, n);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) s += p[i];
  CHECK(cudaFree(p));
  std::printf("sum %ld\n", s);
}
