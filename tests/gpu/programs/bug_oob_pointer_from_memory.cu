// cucatch-expect: out-of-bounds write 4 kernel=through_table
// The pointer used is loaded from a device array of pointers.
#include "common.h"
__global__ void through_table(int** table, int which, int n) {
  int* p = table[which];
  int i = threadIdx.x;
  if (i == n) p[i] = 5;  // cucatch-bug-line
}
int main() {
  int* bufs[4];
  for (auto& b : bufs) CHECK(cudaMalloc(&b, 64 * sizeof(int)));
  int** table;
  CHECK(cudaMalloc(&table, sizeof bufs));
  CHECK(cudaMemcpy(table, bufs, sizeof bufs, cudaMemcpyHostToDevice));
  through_table<<<1, 128>>>(table, 2, 64);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
