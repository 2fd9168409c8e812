// cucatch-expect: double-free kernel=release_twice memory=device-heap
// cucatch-jit-env: CUCATCH_TAGS=1
// A block freed twice in a kernel: the second free is reported (with the block's malloc and
// first free) and not made; without cucatch the device heap would be corrupted silently.
#include "common.h"
__global__ void release_twice(int n) {
  char* p = static_cast<char*>(malloc(n));  // cucatch-alloc-line
  if (!p) return;
  p[0] = 1;
  free(p);  // cucatch-free-line
  if (threadIdx.x == 0) free(p);  // cucatch-bug-line
}
int main() {
  release_twice<<<1, 4>>>(64);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
