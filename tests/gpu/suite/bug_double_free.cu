// cucatch-expect: double-free
// cudaFree of the same pointer twice.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void touch(float* p) { p[threadIdx.x] = 1.0f; }

int main() {
  float* p;
  CHECK(cudaMalloc(&p, 1000));
  touch<<<1, 250>>>(p);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(p));
  CHECK(cudaFree(p));  // double free
  printf("done\n");
  return 0;
}
