// cucatch-expect: clean
// cucatch-expect-checked: copy_scaled
// Pointers passed inside a struct argument, and memset/memcpy on interior pointers.
#include "common.h"
struct Views {
  const float* in;
  float* out;
  int n;
};
__global__ void copy_scaled(Views v, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n) v.out[i] = f * v.in[i];
}
int main() {
  const int n = 1000;
  float *a, *b, h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  CHECK(cudaMalloc(&a, n * 4));
  CHECK(cudaMalloc(&b, n * 4));
  CHECK(cudaMemcpy(a, h, n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(a + 100, 0, 50 * 4));
  CHECK(cudaMemcpy(a + 500, h, 10 * 4, cudaMemcpyHostToDevice));
  copy_scaled<<<(n + 255) / 256, 256>>>(Views{a, b, n}, 3.0f);
  CHECK(cudaMemcpy(h, b + 1, (n - 1) * 4, cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < n - 1; ++i) s += h[i];
  std::printf("sum %.1f\n", s);
}
