// cucatch-expect: use-after-scope read 4 kernel=read_returned table-frame=make
// cucatch-flags: -G
// A debug build (-G) of a device function that returns a pointer to its own local array (the
// compiler warns, and at -O2 deletes the read as undefined): the kernel reads through it after
// the function returned, from a frame below its own, which no longer exists.
#include "common.h"
__device__ int* make(int v) {
  int a[8];
  for (int i = 0; i < 8; ++i) a[i] = v + i;
  return a;
}
__global__ void read_returned(int* out) {
  int* p = make(int(threadIdx.x));
  out[threadIdx.x] = p[2];  // cucatch-bug-line
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  read_returned<<<1, 32>>>(out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
