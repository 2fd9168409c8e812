// cucatch-expect: out-of-bounds read 4 kernel=sum_tail
// Each thread sums four consecutive elements, each under its own guard, which is one too loose
// (`<= n`): the last thread reads one float past the array. nvcc addresses the four loads through
// one register at offsets 0, 4, 8 and 12, each in a block of its own (cucatch-ptx --stats:
// "guarded family"); the range test before them fails for the last thread, so the copy of the
// loads with their own checks runs, and it reports the load past the end, at its line.
#include "common.h"
__global__ void sum_tail(const float* a, int n, float* out) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  float s = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (i + j <= n) s += a[i + j];  // cucatch-bug-line
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
int main() {
  const int n = 1000, threads = (n + 3) / 4;
  float *a, *out;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&out, 256 * sizeof(float)));  // (every thread of the two blocks)
  CHECK(cudaMemset(a, 0, n * sizeof(float)));
  sum_tail<<<(threads + 127) / 128, 128>>>(a, n, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
