// cucatch-expect: out-of-bounds write 4 kernel=two_bugs
// cucatch-env: CUCATCH_MODE=continue
// cucatch-expect-errors: 2
// In continue mode both violations are reported (each violating thread stops at its own), the
// kernel finishes with the other threads' work done (a[0] = 3), the program runs to its end,
// and the exit status still says an error was found.
#include "common.h"
__global__ void two_bugs(int* a, int* b, int n) {
  if (threadIdx.x == 0) a[n] = 1;  // cucatch-bug-line
  if (threadIdx.x == 1) b[-1] = 2;
  if (threadIdx.x == 2) a[0] = 3;
}
int main() {
  int *a, *b, first;
  CHECK(cudaMalloc(&a, 64 * sizeof(int)));
  CHECK(cudaMalloc(&b, 64 * sizeof(int)));
  two_bugs<<<1, 32>>>(a, b, 64);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&first, a, sizeof first, cudaMemcpyDeviceToHost));
  std::printf("kernel finished, a[0] = %d\n", first);
}
