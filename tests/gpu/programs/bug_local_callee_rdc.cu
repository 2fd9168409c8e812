// cucatch-expect: out-of-bounds read 4 kernel=sums object=__local_depot0 space=local
// cucatch-link: -rdc=true
// cucatch-sources: lib/local_callee.cu
// bug_local_callee_overflow across compilation units (relocatable code): a device function of
// another unit, given a pointer to the kernel's local array, reads one element past its end,
// past the kernel's frame, where the GPU does not fault. The call goes to the function's entry
// point with the frame's bounds, and the report names the kernel's frame from its own unit.
#include "common.h"
__device__ void prefix_sums(int* v, int n);
__global__ void sums(const int* in, int* out, int n) {
  int local[8];
  for (int i = 0; i < 8; ++i) local[i] = in[(threadIdx.x + i) & 31];
  prefix_sums(local, n);  // n = 8: local[8] is past the array
  out[threadIdx.x] = local[threadIdx.x & 7];
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  sums<<<1, 32>>>(in, out, 8);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
