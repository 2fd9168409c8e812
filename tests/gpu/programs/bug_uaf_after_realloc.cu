// cucatch-expect: use-after-free read 4 kernel=stale_read
// cucatch-jit-env: CUCATCH_TAGS=1
// The freed range is handed out again (same size, usually the same address); the stale
// pointer must still be caught, not accepted as a pointer into the new allocation. That takes
// pointer tags, which JIT mode leaves off unless asked for (CUCATCH_TAGS=1).
#include "common.h"
__global__ void stale_read(const int* p, int* out) {
  if (threadIdx.x == 0) *out = p[1];  // cucatch-bug-line
}
int main() {
  int *p, *q, *out;
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMalloc(&p, 4096));
  CHECK(cudaFree(p));
  CHECK(cudaMalloc(&q, 4096));
  std::fprintf(stderr, "same range reused: %s\n",
               ((reinterpret_cast<long>(p) ^ reinterpret_cast<long>(q)) & 0x00FFFFFFFFFFFFFFl) == 0 ? "yes" : "no");
  stale_read<<<1, 32>>>(p, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
