// cucatch-expect: out-of-bounds read 4 kernel=transpose_rows
// A tiled transpose whose row guard is one too far (`<= rows`): in the last tile row, the threads
// whose y + r is rows read the row past the matrix. The four loads of a thread, each under its
// own guard, are one family across guards (cucatch-ptx --stats: "guarded family"): the test of
// their extremes before the first guard fails in that tile, so the copy of the loads with their
// own checks runs, and it reports the load that goes past the end, at its line.
#include "common.h"
constexpr int kTile = 32, kRows = 8;
__global__ void transpose_rows(int rows, int cols, const float* in, float* out) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows)
    if (x < cols && y + r <= rows) tile[threadIdx.y + r][threadIdx.x] = in[size_t(y + r) * cols + x];  // cucatch-bug-line
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows)
    if (x < rows && y + r < cols) out[size_t(y + r) * rows + x] = tile[threadIdx.x][threadIdx.y + r];
}
int main() {
  const int rows = 100, cols = 64;
  float *in, *out;
  CHECK(cudaMalloc(&in, size_t(rows) * cols * sizeof(float)));
  CHECK(cudaMalloc(&out, size_t(rows) * cols * sizeof(float)));
  CHECK(cudaMemset(in, 0, size_t(rows) * cols * sizeof(float)));
  transpose_rows<<<dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), dim3(kTile, kRows)>>>(rows, cols, in, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
