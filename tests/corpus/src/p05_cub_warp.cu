#include <cub/cub.cuh>
__global__ void warp_reduce(const float* in, float* out) {
  using WR = cub::WarpReduce<float>;
  __shared__ typename WR::TempStorage tmp[4];
  int warp = threadIdx.x / 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float s = WR(tmp[warp]).Sum(v);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 4 + warp] = s;
}
