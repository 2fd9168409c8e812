// cucatch-expect: out-of-bounds atomic 4 kernel=count_into
// A __device__ array indexed one past its end: checked against the variable's own size and
// reported with its name.
#include "common.h"
namespace stats {
__device__ int table[64];
}
__global__ void count_into(const int* keys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&stats::table[keys[i]], 1);  // cucatch-bug-line
}
int main() {
  int h[128];
  for (int i = 0; i < 128; ++i) h[i] = i % 64;
  h[77] = 64;  // one bucket too far
  int* keys;
  CHECK(cudaMalloc(&keys, sizeof h));
  CHECK(cudaMemcpy(keys, h, sizeof h, cudaMemcpyHostToDevice));
  count_into<<<1, 128>>>(keys, 128);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
