// cucatch-expect: out-of-bounds read 4 kernel=row_sums object=tile space=shared
// cucatch-flags: -G
// A debug build (-G), where no device function is inlined and every access is generic: a
// helper sums a row of a __shared__ 2-D tile through the pointer it is given, and the last row's
// sum reads one element more than the tile holds. The kernel passes the tile's bounds with the
// pointer (nvcc -G makes the helper .visible; cucatch-nvcc tells cucatch-ptx the module is a
// whole program, so no other unit calls it), and the helper checks against them.
#include "common.h"
__device__ float row_sum(const float* row, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += row[i];  // cucatch-bug-line
  return s;
}
__global__ void row_sums(const float* in, float* out, int width) {
  __shared__ float tile[8][32];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = in[y * 32 + x];
  __syncthreads();
  if (x == 0) out[y] = row_sum(tile[y], y == 7 ? width + 1 : width);
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 256 * sizeof(float)));
  CHECK(cudaMalloc(&out, 8 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 256 * sizeof(float)));
  row_sums<<<1, dim3(32, 8)>>>(in, out, 32);  // row 7 reads tile[7][32]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
