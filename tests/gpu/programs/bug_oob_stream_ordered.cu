// cucatch-expect: out-of-bounds write 4 kernel=async_write memory=stream-ordered
#include "common.h"
__global__ void async_write(int* p, int n) {
  int i = threadIdx.x;
  if (i == n) p[i] = 3;  // cucatch-bug-line
}
int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* p;
  CHECK(cudaMallocAsync(&p, 200 * sizeof(int), s));
  async_write<<<1, 256, 0, s>>>(p, 200);
  CHECK(cudaStreamSynchronize(s));
  std::printf("done\n");
}
