// cucatch-expect: out-of-bounds write 4 kernel=build memory=device-heap
// cucatch-jit-env: CUCATCH_TAGS=1
// new[] in a kernel reaches malloc (with the array's cookie, the objects having a destructor);
// writing the element past the last one leaves the block.
#include "common.h"
struct Cell {
  int value;
  __device__ Cell() : value(-1) {}
  __device__ ~Cell() { value = 0; }
};
__global__ void build(int n, int* out) {
  Cell* cells = new Cell[n];  // cucatch-alloc-line
  if (!cells) return;
  for (int i = 0; i < n; ++i) cells[i].value = i;
  int past = n + static_cast<int>(threadIdx.x);
  cells[past].value = 7;  // cucatch-bug-line
  out[threadIdx.x] = cells[0].value;
  delete[] cells;
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  build<<<1, 1>>>(3, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
