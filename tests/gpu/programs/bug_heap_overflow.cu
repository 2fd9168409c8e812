// cucatch-expect: out-of-bounds write 4 kernel=fill memory=device-heap
// cucatch-jit-env: CUCATCH_TAGS=1
// A block from malloc in a kernel, written one element past its end: the device heap's block is
// its own object (Compute Sanitizer sees only the heap as a whole). JIT mode tags device-heap
// blocks only with pointer tags on.
#include "common.h"
__global__ void fill(int n, int** keep) {
  int* row = static_cast<int*>(malloc(n * sizeof(int)));  // cucatch-alloc-line
  if (!row) return;
  for (int i = 0; i <= n; ++i)  // one too many
    row[i] = i * static_cast<int>(threadIdx.x);  // cucatch-bug-line
  keep[threadIdx.x] = row;
}
int main() {
  int** keep;
  CHECK(cudaMalloc(&keep, 32 * sizeof(int*)));
  fill<<<1, 32>>>(16, keep);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
