// cucatch-expect: null-pointer-dereference write 4 kernel=write_through
// A kernel handed a null pointer writes through it: reported as a null-pointer dereference
// with its offset from null, not left to the GPU's "illegal memory access".
#include "common.h"
__global__ void write_through(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;  // cucatch-bug-line
}
int main() {
  float* forgotten = nullptr;  // the cudaMalloc that should have set it was never made
  write_through<<<1, 64>>>(forgotten, 64);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
