// cucatch-expect: out-of-bounds write 4 kernel=rows object=s space=shared
// __launch_bounds__(256) bounds the block's threads, not each dimension: launched as 2 x 128,
// threadIdx.y reaches 127 and s[threadIdx.y] of 64 is written past its end. (Reading .maxntid
// 256, 1, 1 per dimension proved that store for every launch and left it unchecked.)
#include "common.h"
__global__ void __launch_bounds__(256) rows(int* out) {
  __shared__ int s[64];
  s[threadIdx.y] = threadIdx.x;  // cucatch-bug-line
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x & 63];
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 256 * sizeof(int)));
  rows<<<1, dim3(2, 128)>>>(out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
