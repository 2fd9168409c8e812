// cucatch-expect: out-of-bounds write 4
// The bad store is in a __noinline__ device function (a .func in the PTX), called with an
// index one past the end by the kernel's last thread.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__device__ __noinline__ void store_scaled(float* p, int i, float scale) {
  p[i] = scale * i;  // cucatch-bug-line
}

__global__ void fill_scaled(float* p, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) store_scaled(p, i, scale);
}

int main() {
  const int n = 250;  // 1000 bytes
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  fill_scaled<<<(n + 127) / 128, 128>>>(p, n, 3.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
