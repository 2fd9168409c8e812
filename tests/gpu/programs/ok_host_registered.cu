// cucatch-expect: clean
// Host memory registered with cudaHostRegister and read by a kernel through its host address:
// tracked (untagged: host code uses the same pointer), silent when read in bounds.
#include <cstdlib>
#include "common.h"
__global__ void sum(const int* p, int n, int* out) {
  int s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += p[i];
  atomicAdd(out, s);
}
int main() {
  const int n = 1 << 16;
  int* h = static_cast<int*>(std::aligned_alloc(4096, n * 4));
  for (int i = 0; i < n; ++i) h[i] = i % 10;
  CHECK(cudaHostRegister(h, n * 4, cudaHostRegisterMapped));
  int* out;
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemset(out, 0, 4));
  sum<<<1, 256>>>(h, n, out);
  int s = 0;
  CHECK(cudaMemcpy(&s, out, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaHostUnregister(h));
  std::free(h);
  std::printf("sum %d\n", s);
}
