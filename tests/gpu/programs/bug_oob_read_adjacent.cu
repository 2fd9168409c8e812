// cucatch-expect: out-of-bounds read 4 kernel=read_past
#include "common.h"
__global__ void read_past(const int* p, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) out[0] = p[i];  // cucatch-bug-line
}
int main() {
  int *p, *out;
  CHECK(cudaMalloc(&p, 1000));
  CHECK(cudaMalloc(&out, 4));
  read_past<<<1, 256>>>(p, 250, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
