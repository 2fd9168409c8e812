// cucatch-expect: use-after-scope read 4 kernel=stale_in_callee table-frame=fill_and_keep
// A use after scope inside a device function: fill_and_keep keeps a pointer to its local array
// in global memory and returns; read_kept, the device function that called it, reads through
// the pointer after the frame is gone. (A kernel knows its own frame is all the local memory
// live while it runs; a device function knows it from its thread's frame table, which still
// holds the frame that returned, and names it.)
#include "common.h"
__device__ int* kept[64];
__device__ __noinline__ int fill_and_keep(int n) {
  int a[32];
  for (int i = 0; i < 32; ++i) a[i] = n * 3 + i;
  kept[threadIdx.x] = a;
  return a[n & 31];
}
__device__ __noinline__ int read_kept(int n) {
  int s = fill_and_keep(n);
  const int* stale = kept[threadIdx.x];
  return s + stale[3];  // cucatch-bug-line
}
__global__ void stale_in_callee(int* out, int n) { out[threadIdx.x] = read_kept(n + int(threadIdx.x)); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  stale_in_callee<<<1, 64>>>(out, 5);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
