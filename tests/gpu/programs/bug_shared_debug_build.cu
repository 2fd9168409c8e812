// cucatch-expect: out-of-bounds read 4 kernel=blur_rows object=tile space=shared
// cucatch-flags: -G
// A __shared__ tile read one element before its start in a debug build (-G): every access is
// generic there, through a pointer made by cvta.shared from the tile's address, which carries
// the tile's bounds into the generic space.
#include "common.h"
__global__ void blur_rows(const float* in, float* out, int left) {
  __shared__ float weights[16];
  __shared__ float tile[16][16];
  int x = threadIdx.x, y = threadIdx.y;
  if (y == 0) weights[x] = 1.0f / 16;
  tile[y][x] = in[y * 16 + x];
  __syncthreads();
  float s = tile[y][x];
  if (x > 0 || left) s += tile[y][x - 1];  // cucatch-bug-line
  out[y * 16 + x] = s * weights[x];
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 256 * sizeof(float)));
  CHECK(cudaMalloc(&out, 256 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 256 * sizeof(float)));
  blur_rows<<<1, dim3(16, 16)>>>(in, out, 1);  // thread (0,0) reads tile[0][-1]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
