// cucatch-expect: out-of-bounds read 4 kernel=sums object=__local_depot2 space=local
// bug_local_callee_overflow through a function pointer: a device function reached through a
// table, given a pointer to the kernel's local array, reads one element past its end, past the
// kernel's frame, where the GPU does not fault. The indirect call passes the frame's bounds.
#include "common.h"
__device__ void prefix(int* v, int n) {
  for (int i = 1; i <= n; ++i) v[i] += v[i - 1];  // cucatch-bug-line
}
__device__ void clear(int* v, int n) {
  for (int i = 0; i < n; ++i) v[i] = 0;
}
typedef void (*Op)(int*, int);
__device__ Op ops[2] = {prefix, clear};
__global__ void sums(const int* in, int* out, const int* which, int n) {
  int local[8];
  for (int i = 0; i < 8; ++i) local[i] = in[(threadIdx.x + i) & 31];
  ops[which[0]](local, n);  // which[0] = 0, n = 8: local[8] is past the array
  out[threadIdx.x] = local[threadIdx.x & 7];
}
int main() {
  int *in, *out, *which;
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMalloc(&which, sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  CHECK(cudaMemset(which, 0, sizeof(int)));
  sums<<<1, 32>>>(in, out, which, 8);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
