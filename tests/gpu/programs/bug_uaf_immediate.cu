// cucatch-expect: use-after-free write 4 kernel=touch
// cucatch-expect-launch-twin: touch
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
