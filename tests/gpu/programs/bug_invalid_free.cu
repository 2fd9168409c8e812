// cucatch-expect: invalid-free
#include "common.h"
int main() {
  char* p;
  CHECK(cudaMalloc(&p, 64));
  cudaError_t e = cudaFree(p + 4);
  std::printf("interior free: %d\n", static_cast<int>(e));
}
