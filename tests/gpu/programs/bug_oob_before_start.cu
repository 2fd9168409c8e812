// cucatch-expect: out-of-bounds write 4 kernel=before
#include "common.h"
__global__ void before(int* p) {
  if (threadIdx.x == 0) p[-1] = 1;  // cucatch-bug-line
}
int main() {
  int* p;
  CHECK(cudaMalloc(&p, 256));
  before<<<1, 32>>>(p);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
