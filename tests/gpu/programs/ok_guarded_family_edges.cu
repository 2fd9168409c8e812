// cucatch-expect: clean
// Tiled transposes whose loads and stores are families across guards (each under its own
// `y + r < rows` guard; cucatch-ptx --stats: "guarded family"), of matrices whose sides are not
// multiples of the tile: in the edge tiles the extremes' addresses lie past the matrix although
// the guards keep those accesses from running, so the test before the loads fails there and the
// copy with every check runs, and must report nothing; in the inner tiles the loads run without
// their checks. Two more kernels guard their rows the same way but are no such family, and keep
// every check: one indexes with 64-bit sizes through a row pitch larger than the row (a product of
// two 64-bit values may wrap), one reads its rows bottom-up (`rows - 1 - (y + r)` goes down as r
// goes up). Two kernels read through one address register at several offsets, each access under
// its own guard (cucatch-ptx --stats: "guarded family"): four consecutive elements per thread of
// an array whose length is not a multiple of four, and a 2 x 2 block per thread of the matrix;
// at the ends the range tested before them lies past the array, the checked copy runs and reports
// nothing. The output is checked on the host.
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
__global__ void sum4(const float* a, int n, float* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, i = t * 4;
  float s = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (i + j < n) s += a[i + j];
  if (i < n) out[t] = s;
}
__global__ void sum2x2(int rows, int cols, const float* a, float* out) {
  int r = (blockIdx.y * blockDim.y + threadIdx.y) * 2, c = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  float s = 0;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (r + i < rows && c + j < cols) s += a[size_t(r + i) * cols + c + j];
  if (r < rows && c < cols) out[size_t(r / 2) * ((cols + 1) / 2) + c / 2] = s;
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
  // 7000 elements (rows * cols) summed four at a time: 1750 threads, and 6999 = 4 * 1749 + 3.
  // (Each in an allocation of exactly its size, so that past the end is outside it.)
  const int n = rows * cols - 1;
  float* exact;
  CHECK(cudaMalloc(&exact, n * sizeof(float)));
  CHECK(cudaMemcpy(exact, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  sum4<<<(n / 4 + 1 + 127) / 128, 128>>>(exact, n, out);
  CHECK(cudaMemcpy(got.data(), out, (n + 3) / 4 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int t = 0; t < (n + 3) / 4; ++t) {
    float s = 0;
    for (int j = 0; j < 4 && 4 * t + j < n; ++j) s += host[4 * t + j];
    wrong += got[t] != s;
  }
  // A 99 x 71 matrix (odd sides) in 2 x 2 blocks.
  const int r2 = rows - 1, c2 = cols + 1, out2 = ((r2 + 1) / 2) * ((c2 + 1) / 2);
  CHECK(cudaFree(exact));
  CHECK(cudaMalloc(&exact, size_t(r2) * c2 * sizeof(float)));
  CHECK(cudaMemcpy(exact, host.data(), size_t(r2) * c2 * sizeof(float), cudaMemcpyHostToDevice));
  sum2x2<<<dim3((c2 / 2 + 16) / 16, (r2 / 2 + 16) / 16), dim3(16, 16)>>>(r2, c2, exact, out);
  CHECK(cudaMemcpy(got.data(), out, out2 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < r2; y += 2)
    for (int x = 0; x < c2; x += 2) {
      float s = 0;
      for (int i = 0; i < 2 && y + i < r2; ++i)
        for (int j = 0; j < 2 && x + j < c2; ++j) s += host[size_t(y + i) * c2 + x + j];
      wrong += got[size_t(y / 2) * ((c2 + 1) / 2) + x / 2] != s;
    }
  CHECK(cudaDeviceSynchronize());
  std::printf("wrong %d, first %.1f, last %.1f\n", wrong, got[0], got[out2 - 1]);
}
