// cucatch-expect: out-of-bounds write 4 kernel=transpose_pair object=tile_b space=shared
// A pointer to a __shared__ array passed to a device function, which writes one row too far:
// the function is called for two arrays, and the write through the second one lands past its
// end. Inlined, the function's accesses are checked against the array each call passes.
#include "common.h"
__device__ void store_row(float* tile, int row, int width, const float* src) {
  for (int c = threadIdx.x; c < width; c += blockDim.x) tile[row * width + c] = src[c];  // cucatch-bug-line
}
__global__ void transpose_pair(const float* in, float* out, int rows_b) {
  __shared__ float tile_a[8 * 32];
  __shared__ float tile_b[8 * 32];
  for (int r = 0; r < 8; ++r) store_row(tile_a, r, 32, in + r * 32);
  for (int r = 0; r < rows_b; ++r) store_row(tile_b, r, 32, in + r * 32);
  __syncthreads();
  int t = threadIdx.x;
  out[t] = tile_a[(t % 8) * 32 + t / 8] + tile_b[(t % 8) * 32 + t / 8];
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 16 * 32 * sizeof(float)));
  CHECK(cudaMalloc(&out, 256 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 16 * 32 * sizeof(float)));
  transpose_pair<<<1, 32>>>(in, out, 9);  // tile_b has 8 rows
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
