// cucatch-expect: out-of-bounds read 4 kernel=serial_sum
// A single thread sums an array with an off-by-one loop bound (j <= n).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void serial_sum(const int* a, int n, int* out) {
  int s = 0;
  for (int j = 0; j <= n; ++j)
    s += a[j];  // cucatch-bug-line
  *out = s;
}

int main() {
  const int n = 250;  // 1000 bytes
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *a, *out;
  CHECK(cudaMalloc(&a, sizeof(h)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice));
  serial_sum<<<1, 1>>>(a, n, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int s;
  CHECK(cudaMemcpy(&s, out, sizeof(int), cudaMemcpyDeviceToHost));
  printf("sum = %d\n", s);
  return 0;
}
