// cucatch-expect: invalid-free kernel=release_inside memory=device-heap
// cucatch-jit-env: CUCATCH_TAGS=1
// free of a pointer into the middle of a block (not the one malloc returned) is reported with
// the block it points into, and not made.
#include "common.h"
__global__ void release_inside(int n) {
  int* p = static_cast<int*>(malloc(n * sizeof(int)));  // cucatch-alloc-line
  if (!p) return;
  p[0] = n;
  free(p + 1);  // cucatch-bug-line
}
int main() {
  release_inside<<<1, 1>>>(16);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
