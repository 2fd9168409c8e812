// cucatch-expect: use-after-free write 4 kernel=late
// Freed with cudaFreeAsync on the stream; a kernel enqueued after the free uses it. A kernel
// enqueued before the free (`early`) is correct and must not be reported.
#include "common.h"
__global__ void early(int* p) {
  if (threadIdx.x == 0) p[0] = 1;
}
__global__ void late(int* p) {
  if (threadIdx.x == 0) p[2] = 2;  // cucatch-bug-line
}
int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* p;
  CHECK(cudaMallocAsync(&p, 256, s));
  early<<<1, 32, 0, s>>>(p);
  CHECK(cudaFreeAsync(p, s));
  late<<<1, 32, 0, s>>>(p);
  CHECK(cudaStreamSynchronize(s));
  std::printf("done\n");
}
