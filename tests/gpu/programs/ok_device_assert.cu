// cucatch-expect: clean
// A device-side assert that fails: the program expects cudaErrorAssert from the synchronization
// (as cuda-samples' simpleAssert does), and must get exactly that under cucatch, with nothing
// from cucatch (an assert is not a memory error, and not a failure for cucatch to explain).
#include <cassert>
#include "common.h"
__global__ void check_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] >= 0);
}
int main() {
  const int n = 256;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i == 77 ? -1 : i;  // one thread fails: one message
  int* v;
  CHECK(cudaMalloc(&v, sizeof h));
  CHECK(cudaMemcpy(v, h, sizeof h, cudaMemcpyHostToDevice));
  check_positive<<<2, 128>>>(v, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::fflush(stdout);
  std::printf("synchronize: %s\n", cudaGetErrorName(e));
  return e == cudaErrorAssert ? 0 : 1;
}
