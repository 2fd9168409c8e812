// cucatch-expect: leak
// cucatch-env: CUCATCH_LEAK_CHECK=1
// Two allocations, one freed: the other is still live at exit.
#include "common.h"
int main() {
  int *kept, *freed;
  CHECK(cudaMalloc(&kept, 4096));  // cucatch-bug-line
  CHECK(cudaMalloc(&freed, 128));
  CHECK(cudaFree(freed));
  std::printf("done\n");
}
