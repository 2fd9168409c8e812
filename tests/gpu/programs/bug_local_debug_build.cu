// cucatch-expect: out-of-bounds write 4 kernel=fill_table object=__local_depot0 space=local
// cucatch-flags: -G
// A debug build addresses every local variable through the generic frame pointer (%SP): the
// generic pointer's bounds are the frame's, moved to generic addresses with the same cvta.
#include "common.h"
__global__ void fill_table(int n, int* out) {
  int table[4];
  for (int i = 0; i < n; ++i) table[i] = i * 3;  // cucatch-bug-line
  out[threadIdx.x] = table[threadIdx.x % 4];
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  fill_table<<<1, 32>>>(12, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
