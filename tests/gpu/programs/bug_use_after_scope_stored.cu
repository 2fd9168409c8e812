// cucatch-expect: use-after-scope read 4 kernel=keep_and_read table-frame=fill
// An optimized build: a device function that is not inlined keeps a pointer to its local array
// in global memory, and the kernel reads through it after the function returned. (Through
// memory the compiler cannot see that the frame is gone, and keeps the read.) The kernel's own
// local array gives it a frame, the lowest live one, which the stale pointer lies below; the
// kernel calls a function that takes the frame table, which names the frame that returned.
#include "common.h"
__device__ int* kept[64];
__device__ __noinline__ int fill(int n) {
  int a[32];
  for (int i = 0; i < 32; ++i) a[i] = n * 3 + i;
  kept[threadIdx.x] = a;
  return a[n & 31];
}
__global__ void keep_and_read(int* out, const int* in, int n) {
  int mine[32];
  for (int i = 0; i < 32; ++i) mine[i] = in[i] + int(threadIdx.x);
  int s = fill(n + int(threadIdx.x));
  const int* stale = kept[threadIdx.x];
  out[threadIdx.x] = s + mine[(n + int(threadIdx.x)) & 31] + stale[3];  // cucatch-bug-line
}
int main() {
  int *out, *in;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  keep_and_read<<<1, 64>>>(out, in, 5);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
