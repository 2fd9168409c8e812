// cucatch-expect: clean
// Pointers that leave the allocation and come back before they are used.
#include "common.h"
__global__ void wander(float* p, int n) {
  int i = threadIdx.x;
  float* far = p + n + 5 + i;      // out of bounds, not used
  float* back = far - n - 5;       // back inside
  if (i < n) back[0] = 2.0f * i;
  float* before = p - 100;         // before the start, not used
  if (i < n) before[100 + i] += 1.0f;
}
int main() {
  const int n = 200;
  float *p, h[n];
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  wander<<<1, 256>>>(p, n);
  CHECK(cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : h) s += v;
  std::printf("sum %.1f\n", s);
}
