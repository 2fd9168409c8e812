// cucatch-expect: use-after-scope read 4 kernel=keep_through_pointer frame=keep_through_pointer
// The kernel calls the function that keeps a pointer to its local array through a function
// pointer, so no function it calls takes the frame table: its own frame, the only local memory
// live while it runs, bounds the stale pointer, and the report names the kernel's frame (not
// the one that returned).
#include "common.h"
__device__ int* kept[64];
__device__ __noinline__ int fill(int n) {
  int a[32];
  for (int i = 0; i < 32; ++i) a[i] = n * 3 + i;
  kept[threadIdx.x] = a;
  return a[n & 31];
}
typedef int (*Filler)(int);
__device__ Filler filler = fill;
__global__ void keep_through_pointer(int* out, const int* in, int n) {
  int mine[32];
  for (int i = 0; i < 32; ++i) mine[i] = in[i] + int(threadIdx.x);
  int s = filler(n + int(threadIdx.x));
  const int* stale = kept[threadIdx.x];
  out[threadIdx.x] = s + mine[(n + int(threadIdx.x)) & 31] + stale[3];  // cucatch-bug-line
}
int main() {
  int *out, *in;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  keep_through_pointer<<<1, 64>>>(out, in, 5);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
