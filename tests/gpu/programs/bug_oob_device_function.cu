// cucatch-expect: out-of-bounds write 8 kernel=caller
// The access is in a device function that is not inlined; the report names the kernel that
// was running and the function's line.
#include "common.h"
__device__ __noinline__ void store(double* p, int i, double v) {
  p[i] = v;  // cucatch-bug-line
}
__global__ void caller(double* p, int n) {
  int i = threadIdx.x;
  if (i == n) store(p, i, 1.0);
}
int main() {
  double* p;
  CHECK(cudaMalloc(&p, 100 * sizeof(double)));
  caller<<<1, 128>>>(p, 100);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
