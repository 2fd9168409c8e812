// cucatch-expect: use-after-scope read 4 kernel=returned_then_reused table-frame-reused=make_row
// cucatch-flags: -G
// A debug build: make_row returns a pointer to its own local array, which its caller keeps in
// global memory and calls it again; the second call's frame lies where the first's was, and it
// reads through the kept pointer. The pointer's frame tag says which call's frame it was made
// in; the live frame there is a later call's.
#include "common.h"
__device__ const int* kept[32];
__device__ __noinline__ int* make_row(int n, int* sum) {
  int row[8];
  for (int i = 0; i < 8; ++i) row[i] = n + i;
  const int* stale = kept[threadIdx.x];
  if (stale) *sum += stale[2];  // cucatch-bug-line
  return row;
}
__device__ __noinline__ int use_row(int n) {
  int sum = 0;
  kept[threadIdx.x] = nullptr;
  kept[threadIdx.x] = make_row(n, &sum);
  make_row(n + 1, &sum);
  return sum;
}
__global__ void returned_then_reused(int* out, int n) { out[threadIdx.x] = use_row(n + int(threadIdx.x)); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  returned_then_reused<<<1, 32>>>(out, 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
