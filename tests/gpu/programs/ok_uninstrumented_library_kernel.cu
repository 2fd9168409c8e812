// cucatch-expect: clean
// cucatch-expect-checked: add_through_library
// cucatch-plain-library: lib/scale_library.cu
// cucatch-expect-tagged
// cucatch-expect-note: kernel library_scale(float*, int, float) is linked with instrumented code
// A static library of device code built by plain nvcc, linked (-rdc) with code cucatch-nvcc
// instrumented: one module holds both. "Instrumented" is decided per kernel, so the library's
// kernel gets untagged arguments although the module is instrumented, and an instrumented
// kernel that calls the library's device function hands it an untagged pointer.
#include "common.h"
void launch_library_scale(float* p, int n, float f);
__device__ float library_load(const float* p, int i);
__global__ void add_through_library(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += library_load(x, i);
}
int main() {
  const int n = 1 << 16;
  static float h[n];
  for (int i = 0; i < n; ++i) h[i] = i % 13;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * 4));
  CHECK(cudaMalloc(&y, n * 4));
  sayWhetherTagged(x);
  CHECK(cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0, n * 4));
  launch_library_scale(x, n, 2.0f);
  CHECK(cudaGetLastError());
  add_through_library<<<n / 256, 256>>>(x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, y, n * 4, cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : h) s += v;
  std::printf("sum %.0f\n", s);
}
