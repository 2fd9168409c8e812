// cucatch-expect: clean
// cucatch-expect-tagged
// cudaFreeAsync on the default stream (stream 0) right after the kernels that use the memory:
// the free takes effect in that stream's order, so blocks still running (or not yet started)
// when the host returns from cudaFreeAsync see the memory live. (The table update has to be
// enqueued on stream 0, not made at once.)
#include "common.h"

__global__ void slow_sum(const float* p, int n, int rounds, float* out) {
  float s = 0;
  for (int r = 0; r < rounds; ++r)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i];
  atomicAdd(out, s);
}

int main() {
  const int n = 1 << 20;
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  float total = 0;
  for (int k = 0; k < 4; ++k) {
    float* p;
    CHECK(cudaMallocAsync(&p, n * sizeof(float), 0));
    sayWhetherTagged(p);
    CHECK(cudaMemsetAsync(p, 0, n * sizeof(float), 0));
    CHECK(cudaMemsetAsync(out, 0, sizeof(float), 0));
    slow_sum<<<4096, 256>>>(p, n, 64, out);
    CHECK(cudaFreeAsync(p, 0));  // returns while slow_sum still runs
    float h;
    CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    total += h;
  }
  CHECK(cudaFree(out));
  std::printf("sum %.1f\n", total);
}
