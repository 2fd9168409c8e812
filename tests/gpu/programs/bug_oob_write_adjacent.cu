// cucatch-expect: out-of-bounds write 4 kernel=write_past
// cucatch-expect-launch-twin: write_past
#include "common.h"
__global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
int main() {
  float* p;
  CHECK(cudaMalloc(&p, 1000));  // 250 floats
  write_past<<<1, 256>>>(p, 250);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
