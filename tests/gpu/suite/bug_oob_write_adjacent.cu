// cucatch-expect: out-of-bounds write 4 kernel=fill_with_sentinel
// The last thread writes a sentinel one float past the end of a 1000-byte allocation.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void fill_with_sentinel(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0.5f * i;
  if (i == n - 1) a[n] = -1.0f;  // cucatch-bug-line
}

int main() {
  const int n = 250;  // 1000 bytes
  float* a;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  fill_with_sentinel<<<(n + 127) / 128, 128>>>(a, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float last;
  CHECK(cudaMemcpy(&last, a + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
  printf("a[n-1] = %.1f\n", last);
  return 0;
}
