// cucatch-expect: out-of-bounds write 4 kernel=neighbour_through_memory table-frame=owner frame_offset=0 neighbour=64
// A callee overruns one of its caller's two local arrays into the other through a pointer it read
// from global memory (no bounds came with it). The write one past `a` lands in `b`, inside the
// same live frame, so a check against the whole frame would pass it: the frame table finds the
// frame, and the unit's table of frame arrays narrows it to `a`, the array the pointer is in.
#include "common.h"
__device__ int* handed[64];
__device__ __noinline__ void fill_handed(int n) {
  int* p = handed[threadIdx.x];
  for (int i = 0; i <= n; ++i) p[i] = i * 7;  // cucatch-bug-line
}
__device__ __noinline__ int owner(int n) {
  int a[16];
  int b[16];
  for (int i = 0; i < 16; ++i) {
    a[i] = 0;
    b[i] = i;
  }
  handed[threadIdx.x] = a;
  fill_handed(n);
  return a[n & 15] + b[(n + 3) & 15];
}
__global__ void neighbour_through_memory(int* out, int n) { out[threadIdx.x] = owner(n); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  neighbour_through_memory<<<1, 64>>>(out, 16);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
