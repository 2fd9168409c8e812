// cucatch-expect: out-of-bounds read 4 kernel=row_sums
// cucatch-build-env: CUCATCH_PTX_FLAGS=--loop-ranges
// A warp per row strides through the row's elements; the last row's end is one past the array.
// The loop's range check before it fails, so the per-access checks run and report the access.
#include "common.h"
__global__ void row_sums(const unsigned* rowStart, const float* vals, unsigned rows, float* out) {
  unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  float s = 0;
  for (unsigned j = rowStart[row] + lane; j < rowStart[row + 1]; j += 32) s += vals[j];  // cucatch-bug-line
  if (lane == 0) out[row] = s;
}
int main() {
  const unsigned rows = 64, per = 100, n = rows * per;
  unsigned h[rows + 1];
  for (unsigned r = 0; r <= rows; ++r) h[r] = r * per;
  h[rows] = n + 1;  // the bug: one past the end of vals
  unsigned* rowStart;
  float *vals, *out;
  CHECK(cudaMalloc(&rowStart, sizeof h));
  CHECK(cudaMalloc(&vals, n * sizeof(float)));
  CHECK(cudaMalloc(&out, rows * sizeof(float)));
  CHECK(cudaMemcpy(rowStart, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(vals, 0, n * sizeof(float)));
  row_sums<<<rows * 32 / 128, 128>>>(rowStart, vals, rows, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
