#include <cub/cub.cuh>
template <int BLOCK>
__global__ void block_sum(const int* in, int* out) {
  using Reduce = cub::BlockReduce<int, BLOCK>;
  __shared__ typename Reduce::TempStorage tmp;
  int v = in[blockIdx.x * BLOCK + threadIdx.x];
  int s = Reduce(tmp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
template <int BLOCK>
__global__ void block_scan(const float* in, float* out) {
  using Scan = cub::BlockScan<float, BLOCK>;
  __shared__ typename Scan::TempStorage tmp;
  float v = in[blockIdx.x * BLOCK + threadIdx.x];
  Scan(tmp).InclusiveSum(v, v);
  out[blockIdx.x * BLOCK + threadIdx.x] = v;
}
template __global__ void block_sum<128>(const int*, int*);
template __global__ void block_scan<256>(const float*, float*);
