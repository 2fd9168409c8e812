// cucatch-expect: out-of-bounds read 4 kernel=sum_off_by_one
#include "common.h"
__global__ void sum_off_by_one(const float* p, int n, float* out) {
  float s = 0;
  for (int i = 0; i <= n; ++i) s += p[i];  // cucatch-bug-line
  *out = s;
}
int main() {
  float *p, *out;
  CHECK(cudaMalloc(&p, 300 * sizeof(float)));
  CHECK(cudaMemset(p, 0, 300 * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  sum_off_by_one<<<1, 1>>>(p, 300, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
