// cucatch-expect: clean
// A cooperative kernel (grid-wide sync) whose grid is sized from the occupancy query, as the
// conjugate-gradient samples do: the query answers for the instrumented kernel, and the grid
// it gives must launch (with 512 threads per block an uncapped instrumented kernel left 0
// blocks per multiprocessor and cudaLaunchCooperativeKernel failed).
#include <cooperative_groups.h>
#include "common.h"
namespace cg = cooperative_groups;
__global__ void relax(const float* a, const float* b, const float* c, float* x, float* y, float* partial, int n,
                      int iterations) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iterations; ++it) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
      float left = i > 0 ? x[i - 1] : 0.0f, right = i + 1 < n ? x[i + 1] : 0.0f;
      y[i] = (c[i] - a[i] * left - b[i] * right) * 0.25f;
    }
    grid.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) x[i] = y[i];
    grid.sync();
  }
  if (grid.thread_rank() == 0) {
    float s = 0.0f;
    for (int i = 0; i < n; i += 97) s += x[i];
    partial[0] = s;
  }
}
int main() {
  const int n = 1 << 18, threads = 512;
  static float h[n];
  for (int i = 0; i < n; ++i) h[i] = (i % 11) * 0.125f;
  float *a, *b, *c, *x, *y, *partial;
  for (float** v : {&a, &b, &c, &x, &y}) {
    CHECK(cudaMalloc(v, n * 4));
    CHECK(cudaMemcpy(*v, h, n * 4, cudaMemcpyHostToDevice));
  }
  CHECK(cudaMalloc(&partial, 4));
  int device = 0, sms = 0, perSm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, relax, threads, 0));
  if (perSm < 1) {
    std::fprintf(stderr, "the occupancy query says the kernel does not fit\n");
    return 2;
  }
  int n_ = n, iterations = 20;
  void* args[] = {&a, &b, &c, &x, &y, &partial, &n_, &iterations};
  CHECK(cudaLaunchCooperativeKernel((void*)relax, sms * perSm, threads, args, 0, nullptr));
  CHECK(cudaDeviceSynchronize());
  float s = 0;
  CHECK(cudaMemcpy(&s, partial, 4, cudaMemcpyDeviceToHost));
  std::printf("checksum %.4f\n", s);
}
