// cucatch-expect: out-of-bounds read 4 kernel=neighbour_sum
// A neighbour sum reads a[i + 1]; the last thread reads one float past the end of a
// 1000-byte allocation (250 floats; 1000 is not a multiple of the 32-byte granule).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void neighbour_sum(const float* a, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + a[i + 1];  // cucatch-bug-line
}

int main() {
  const int n = 250;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = float(i);
  float *a, *out;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice));
  neighbour_sum<<<(n + 127) / 128, 128>>>(a, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("out[0] = %.1f\n", h[0]);
  return 0;
}
