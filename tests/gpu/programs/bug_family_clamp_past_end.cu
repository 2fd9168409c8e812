// cucatch-expect: out-of-bounds read 4 kernel=blur_row
// A 5-tap row blur whose clamp at the right edge is one element too far (n instead of n - 1):
// the last thread's rightmost tap reads one float past the row. The taps are one address
// expression at dx = -2..2 (a family: cucatch-ptx --stats counts them), checked at the lowest
// and the highest address before the first tap, so the report names the rightmost tap's read.
#include "common.h"
__global__ void blur_row(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= n) return;
  float s = 0.0f;
#pragma unroll
  for (int dx = -2; dx <= 2; ++dx) s += in[min(max(x + dx, 0), n)];  // cucatch-bug-line
  out[x] = s / 5.0f;
}
int main() {
  const int n = 1000;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemset(in, 0, n * sizeof(float)));
  blur_row<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
