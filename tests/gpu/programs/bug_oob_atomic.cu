// cucatch-expect: out-of-bounds atomic 4 kernel=count
#include "common.h"
__global__ void count(unsigned* bins, int nbins) {
  int b = threadIdx.x % (nbins + 1);
  if (b == nbins) atomicAdd(&bins[b], 1u);  // cucatch-bug-line
}
int main() {
  unsigned* bins;
  CHECK(cudaMalloc(&bins, 16 * sizeof(unsigned)));
  count<<<1, 17>>>(bins, 16);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
