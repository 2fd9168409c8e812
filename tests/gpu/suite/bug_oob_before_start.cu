// cucatch-expect: out-of-bounds read 4 kernel=backward_difference
// A backward difference without a guard for i == 0: thread 0 reads a[-1].
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void backward_difference(const float* a, float* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = a[i] - a[i - 1];  // cucatch-bug-line
}

int main() {
  const int n = 250;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = float(i * i);
  float *a, *d;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice));
  backward_difference<<<(n + 127) / 128, 128>>>(a, d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  printf("d[1] = %.1f\n", h[1]);
  return 0;
}
