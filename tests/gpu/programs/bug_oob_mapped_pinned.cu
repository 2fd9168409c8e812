// cucatch-expect: out-of-bounds write 4 kernel=pinned_write memory=host-mapped
#include "common.h"
__global__ void pinned_write(int* p, int n) {
  int i = threadIdx.x;
  if (i == n) p[i] = 3;  // cucatch-bug-line
}
int main() {
  int* host;
  CHECK(cudaHostAlloc(&host, 64 * sizeof(int), cudaHostAllocMapped));
  int* dev;
  CHECK(cudaHostGetDevicePointer(&dev, host, 0));
  pinned_write<<<1, 128>>>(dev, 64);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
