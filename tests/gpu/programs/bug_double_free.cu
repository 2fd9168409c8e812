// cucatch-expect: double-free
// cucatch-also: run the plain build under cucatch-run (host-side checks need no rebuild)
#include "common.h"
int main() {
  int* p;
  CHECK(cudaMalloc(&p, 64));
  CHECK(cudaFree(p));
  cudaError_t e = cudaFree(p);
  std::printf("second free: %d\n", static_cast<int>(e));
}
