// cucatch-expect: out-of-bounds write 4 kernel=overrun memory=device-heap
// cucatch-jit-env: CUCATCH_TAGS=1
// A device-heap block handed back to the host and passed to a kernel as its argument, written one
// element past its end. Its bounds are the device's to know, so the kernel itself runs, not its
// launch twin (instrument/LaunchMetadata.h), and reads them from the tables.
#include "common.h"
__global__ void make(int** keep, int n) {
  *keep = static_cast<int*>(malloc(n * sizeof(int)));  // cucatch-alloc-line
}
__global__ void overrun(int* block, int n) {
  if (threadIdx.x == 0) block[n] = 1;  // cucatch-bug-line
}
int main() {
  int **keep, *block;
  CHECK(cudaMalloc(&keep, sizeof(int*)));
  make<<<1, 1>>>(keep, 16);
  CHECK(cudaMemcpy(&block, keep, sizeof block, cudaMemcpyDeviceToHost));
  if (!block) return 2;
  overrun<<<1, 32>>>(block, 16);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
