// cucatch-expect: use-after-free write 4 kernel=touch
// A kernel given a pointer the host freed runs itself, not its launch twin (Metadata::launchView:
// a free may be ordered after a kernel by a wait on the device), and its threads find the freed
// entry in the device's tables.
#include "common.h"
__global__ void touch(int* p) {
  if (threadIdx.x == 0) p[3] = 7;  // cucatch-bug-line
}
int main() {
  int* p;
  CHECK(cudaMalloc(&p, 64));
  CHECK(cudaFree(p));
  touch<<<1, 32>>>(p);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
