// cucatch-expect: out-of-bounds write 4 kernel=write_past
// cucatch-needs-gpus: 2
// An overflow on the second device is reported like one on the first.
#include "common.h"
__global__ void fill(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
__global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
int main() {
  float *p0, *p1;
  CHECK(cudaMalloc(&p0, 1000));
  fill<<<1, 256>>>(p0, 250);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaSetDevice(1));
  CHECK(cudaMalloc(&p1, 1000));  // 250 floats
  write_past<<<1, 256>>>(p1, 250);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
