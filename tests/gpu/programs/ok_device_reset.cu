// cucatch-expect: clean
// cucatch-expect-tagged
// cudaDeviceReset ends the device's context in the middle of the program; the next CUDA call
// makes a new one, which cucatch checks with tables of its own (it used to leave a second
// context unchecked, with a warning).
#include <vector>

#include "common.h"

__global__ void scale(float* p, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= by;
}

static float run(int n, float by) {
  float* p;
  std::vector<float> h(n, 1.0f);
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  sayWhetherTagged(p);
  CHECK(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scale<<<(n + 255) / 256, 256>>>(p, n, by);
  CHECK(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(p));
  float s = 0;
  for (float v : h) s += v;
  return s;
}

int main() {
  float first = run(1000, 2.0f);
  CHECK(cudaDeviceReset());
  float second = run(3000, 3.0f);
  CHECK(cudaDeviceReset());
  float third = run(500, 4.0f);
  std::printf("%.0f %.0f %.0f\n", first, second, third);
}
