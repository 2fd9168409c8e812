// cucatch-expect: out-of-bounds write 4 kernel=write_past
// After cudaDeviceReset the device's new context is checked too.
#include "common.h"
__global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
int main() {
  float* p;
  CHECK(cudaMalloc(&p, 1000));
  write_past<<<1, 256>>>(p, 1000);  // in bounds: no thread reaches n
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaDeviceReset());
  CHECK(cudaMalloc(&p, 1000));  // 250 floats, in the new context
  write_past<<<1, 256>>>(p, 250);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
