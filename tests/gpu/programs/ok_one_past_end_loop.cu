// cucatch-expect: clean
// Loops that walk to a one-past-the-end pointer and compare against it.
#include "common.h"
__global__ void walk(int* begin, int n, int* out) {
  int* end = begin + n;
  int s = 0;
  for (int* q = begin; q != end; ++q) s += *q;
  for (int* q = end; q != begin;) s += *--q;
  *out = s;
}
int main() {
  const int n = 333;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *p, *out, r;
  CHECK(cudaMalloc(&p, sizeof h));
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemcpy(p, h, sizeof h, cudaMemcpyHostToDevice));
  walk<<<1, 1>>>(p, n, out);
  CHECK(cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost));
  std::printf("sum %d\n", r);
}
