// cucatch-expect: out-of-bounds read 4 kernel=tally object=counts space=global
// A __device__ array indexed dynamically in a device function that is not inlined: the address
// is formed in the callee from the variable's symbol, and checked there against its size.
#include "common.h"
__device__ int counts[16];
__device__ __noinline__ void bump(int slot, int by) {
  counts[slot] += by;  // cucatch-bug-line
}
__global__ void tally(const int* slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bump(slots[i], 1);
}
int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i % 16;
  h[9] = 16;
  int* slots;
  CHECK(cudaMalloc(&slots, sizeof h));
  CHECK(cudaMemcpy(slots, h, sizeof h, cudaMemcpyHostToDevice));
  tally<<<1, 32>>>(slots, 32);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
