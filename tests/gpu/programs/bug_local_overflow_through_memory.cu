// cucatch-expect: out-of-bounds write 4 kernel=through_memory table-frame=owner
// A callee overruns its caller's local array through a pointer it read from global memory (no
// bounds came with it): the frame table says which live frame the pointer is in, and the write
// one past that frame's end is reported against it.
#include "common.h"
__device__ int* handed[64];
__device__ __noinline__ void fill_handed(int n) {
  int* p = handed[threadIdx.x];
  for (int i = 0; i <= n; ++i) p[i] = i * 7;  // cucatch-bug-line
}
__device__ __noinline__ int owner(int n) {
  int a[16];
  for (int i = 0; i < 16; ++i) a[i] = 0;
  handed[threadIdx.x] = a;
  fill_handed(n);
  return a[n & 15] + a[(n + 3) & 15];
}
__global__ void through_memory(int* out, int n) { out[threadIdx.x] = owner(n); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  through_memory<<<1, 64>>>(out, 16);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
