// cucatch-expect: clean
// Tiled transposes whose loads and stores are families across guards (each under its own
// `y + r < rows` guard; cucatch-ptx --stats: "guarded family"), of matrices whose sides are not
// multiples of the tile: in the edge tiles the extremes' addresses lie past the matrix although
// the guards keep those accesses from running, so the test before the loads fails there and the
// copy with every check runs, and must report nothing; in the inner tiles the loads run without
// their checks. Two more kernels guard their rows the same way but are no such family, and keep
// every check: one indexes with 64-bit sizes through a row pitch larger than the row (a product of
// two 64-bit values may wrap), one reads its rows bottom-up (`rows - 1 - (y + r)` goes down as r
// goes up). The output is checked on the host.
#include "common.h"
#include <vector>
constexpr int kTile = 32, kRows = 8;
__global__ void transpose(int rows, int cols, const float* in, float* out) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows)
    if (x < cols && y + r < rows) tile[threadIdx.y + r][threadIdx.x] = in[size_t(y + r) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows)
    if (x < rows && y + r < cols) out[size_t(y + r) * rows + x] = tile[threadIdx.x][threadIdx.y + r];
}
__global__ void copy_pitched(long rows, long cols, long pitch, const float* in, float* out) {
  long x = blockIdx.x * long(kTile) + threadIdx.x, y = blockIdx.y * long(kTile) + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows)
    if (x < cols && y + r < rows) out[(y + r) * cols + x] = 2.0f * in[(y + r) * pitch + x];
}
__global__ void flip_rows(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows)
    if (x < cols && y + r < rows) out[(y + r) * cols + x] = in[(rows - 1 - (y + r)) * cols + x];
}
int main() {
  const int rows = 100, cols = 70, pitch = 96;
  std::vector<float> host(size_t(rows) * pitch);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i % 977);
  float *in, *out;
  CHECK(cudaMalloc(&in, host.size() * sizeof(float)));
  CHECK(cudaMalloc(&out, size_t(rows) * cols * sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(kTile, kRows), grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  std::vector<float> got(size_t(rows) * cols);
  int wrong = 0;
  transpose<<<grid, block>>>(rows, cols, in, out);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) wrong += got[size_t(x) * rows + y] != host[size_t(y) * cols + x];
  copy_pitched<<<grid, block>>>(rows, cols, pitch, in, out);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) wrong += got[size_t(y) * cols + x] != 2.0f * host[size_t(y) * pitch + x];
  flip_rows<<<grid, block>>>(rows, cols, in, out);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) wrong += got[size_t(y) * cols + x] != host[size_t(rows - 1 - y) * cols + x];
  CHECK(cudaDeviceSynchronize());
  std::printf("wrong %d, first %.1f, last %.1f\n", wrong, got[0], got[got.size() - 1]);
}
