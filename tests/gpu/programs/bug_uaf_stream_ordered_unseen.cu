// cucatch-expect: use-after-free write 4 kernel=late memory=stream-ordered
// Allocated and freed with cudaMallocAsync and cudaFreeAsync with no other call between, so no
// kernel could see the allocation: its table changes are never enqueued (docs/design.md,
// "Device tables"). A kernel enqueued after the free that uses it must still be reported,
// with the allocation's own sites: by its pointer's tag with tags on; with tags off (JIT mode)
// the allocation is mapped in its stream before the real free.
#include "common.h"
__global__ void late(int* p) {
  if (threadIdx.x == 0) p[3] = 3;  // cucatch-bug-line
}
int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* p;
  CHECK(cudaMallocAsync(&p, 256, s));
  CHECK(cudaFreeAsync(p, s));
  late<<<1, 32, 0, s>>>(p);
  CHECK(cudaStreamSynchronize(s));
  std::printf("done\n");
}
