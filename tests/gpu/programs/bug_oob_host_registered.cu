// cucatch-expect: out-of-bounds read 4 kernel=sum memory=host-registered
// Host memory registered with cudaHostRegister is tracked: a kernel reading one element past
// the registered range is reported against it.
#include <cstdlib>
#include "common.h"
__global__ void sum(const int* p, int n, int* out) {
  int s = 0;
  for (int i = threadIdx.x; i <= n; i += blockDim.x) s += p[i];  // cucatch-bug-line
  atomicAdd(out, s);
}
int main() {
  const int n = 1 << 16;
  // Registered: the first n ints of a larger buffer, so the read past them lands in memory the
  // process owns (no fault without cucatch).
  int* h = static_cast<int*>(std::aligned_alloc(4096, 2 * n * 4));
  for (int i = 0; i < 2 * n; ++i) h[i] = 1;
  CHECK(cudaHostRegister(h, n * 4, cudaHostRegisterMapped));
  int* out;
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemset(out, 0, 4));
  sum<<<1, 256>>>(h, n, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
