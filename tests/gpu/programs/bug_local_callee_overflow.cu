// cucatch-expect: out-of-bounds read 4 kernel=sums object=__local_depot1 space=local
// A device function that is not inlined, given a pointer to its caller's local array, reads
// one element past its end: past the caller's frame, into the stack beside it, where the GPU
// does not fault. The function is also given global memory (so nvcc keeps its pointer generic);
// the kernel passes its frame's bounds with the local pointer, and the callee checks against
// them.
#include "common.h"
__device__ __noinline__ void prefix(int* v, int n) {
  for (int i = 1; i <= n; ++i) v[i] += v[i - 1];  // cucatch-bug-line
}
__global__ void sums(const int* in, int* out, int n) {
  int local[8];
  for (int i = 0; i < 8; ++i) local[i] = in[(threadIdx.x + i) & 31];
  prefix(local, n);  // n = 8: local[8] is past the array
  prefix(out, 4);
  out[8 + threadIdx.x] = local[threadIdx.x & 7];
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  sums<<<1, 32>>>(in, out, 8);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
