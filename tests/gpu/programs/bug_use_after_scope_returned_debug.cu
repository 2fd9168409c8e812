// cucatch-expect: use-after-scope write 4 kernel=returned_in_callee table-frame=make_row
// cucatch-flags: -G
// A debug build (-G; at -O2 the compiler deletes the use of a returned local as undefined): a
// device function returns a pointer to its own local array, and its caller, another device
// function, writes through it after it returned.
#include "common.h"
__device__ __noinline__ int* make_row(int n) {
  int row[8];
  for (int i = 0; i < 8; ++i) row[i] = n + i;
  return row;
}
__device__ __noinline__ int use_row(int n) {
  int* row = make_row(n);
  row[2] = n;  // cucatch-bug-line
  return n;
}
__global__ void returned_in_callee(int* out, int n) { out[threadIdx.x] = use_row(n + int(threadIdx.x)); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  returned_in_callee<<<1, 32>>>(out, 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
