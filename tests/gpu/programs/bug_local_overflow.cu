// cucatch-expect: out-of-bounds read 4 kernel=scatter object=__local_depot0 space=local
// A local array indexed past its end leaves the kernel's frame (its local arrays) into whatever
// lies beside it in the thread's local memory; the GPU does not fault there, and Compute
// Sanitizer only sees an access that leaves the thread's whole stack.
#include "common.h"
__global__ void scatter(const int* keys, int n, int* out) {
  int bins[16];
  for (int i = 0; i < 16; ++i) bins[i] = 0;
  for (int i = 0; i < n; ++i) bins[keys[i]] += 1;  // cucatch-bug-line
  int s = 0;
  for (int i = 0; i < 16; ++i) s += bins[i] * i;
  out[threadIdx.x] = s;
}
int main() {
  int host[8] = {1, 2, 3, 15, 16, 2, 3, 1};  // 16 is one bin past the end
  int *keys, *out;
  CHECK(cudaMalloc(&keys, sizeof host));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemcpy(keys, host, sizeof host, cudaMemcpyHostToDevice));
  scatter<<<1, 32>>>(keys, 8, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
