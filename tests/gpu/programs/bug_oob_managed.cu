// cucatch-expect: out-of-bounds write 4 kernel=managed_write memory=managed
#include "common.h"
__global__ void managed_write(int* p, int n) {
  int i = threadIdx.x;
  if (i == n) p[i] = 3;  // cucatch-bug-line
}
int main() {
  int* p;
  CHECK(cudaMallocManaged(&p, 100 * sizeof(int)));
  p[0] = 1;
  managed_write<<<1, 128>>>(p, 100);
  CHECK(cudaDeviceSynchronize());
  std::printf("done %d\n", p[0]);
}
