// cucatch-expect: out-of-bounds write 4 kernel=far_write
// A write far past the end of `a` that lands inside another live allocation `b`.
#include "common.h"
__global__ void far_write(int* a, long offset) {
  if (threadIdx.x == 0) a[offset] = 42;  // cucatch-bug-line
}
int main() {
  int *a, *b;
  CHECK(cudaMalloc(&a, 1024));
  CHECK(cudaMalloc(&b, 1 << 20));
  long offset = (reinterpret_cast<long>(b) & 0x00FFFFFFFFFFFFFFl) - (reinterpret_cast<long>(a) & 0x00FFFFFFFFFFFFFFl);
  far_write<<<1, 32>>>(a, offset / 4 + 100);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
