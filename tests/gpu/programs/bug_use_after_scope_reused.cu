// cucatch-expect: use-after-scope read 4 kernel=stale_after_reuse table-frame-reused=fill_and_keep
// A use after scope that the address alone cannot tell: fill_and_keep keeps a pointer to its
// local array in global memory; called again at the same depth, its new frame lies where the
// first call's was, and it reads through the pointer the first call kept. The address is inside
// its own live frame; the pointer's frame tag (the first call's serial) is not that frame's, so
// the read is a use after scope. (Without frame tags it was checked against the live frame, and
// passed.)
#include "common.h"
__device__ int* kept[64];
__device__ __noinline__ int fill_and_keep(int n) {
  int a[32];
  for (int i = 0; i < 32; ++i) a[i] = n * 3 + i;
  const int* stale = kept[threadIdx.x];
  int s = stale ? stale[3] : 0;  // cucatch-bug-line
  kept[threadIdx.x] = a;
  return a[n & 31] + s;
}
__device__ __noinline__ int read_kept(int n) {
  kept[threadIdx.x] = nullptr;
  int s = fill_and_keep(n);
  return s + fill_and_keep(n + 1);
}
__global__ void stale_after_reuse(int* out, int n) { out[threadIdx.x] = read_kept(n + int(threadIdx.x)); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  stale_after_reuse<<<1, 64>>>(out, 5);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
