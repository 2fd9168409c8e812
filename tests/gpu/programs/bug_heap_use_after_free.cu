// cucatch-expect: use-after-free read 4 kernel=consume memory=device-heap
// cucatch-jit-env: CUCATCH_TAGS=1
// One kernel allocates a block per thread and frees it; the next reads through the pointer it
// kept. The report names the block's malloc and free, each with its thread and line.
#include "common.h"
__global__ void produce(int** keep) {
  int* p = static_cast<int*>(malloc(8 * sizeof(int)));  // cucatch-alloc-line
  if (!p) return;
  for (int i = 0; i < 8; ++i) p[i] = i;
  keep[threadIdx.x] = p;
  if (threadIdx.x == 3) free(p);  // cucatch-free-line
}
__global__ void consume(int** keep, int* out) {
  int* p = keep[threadIdx.x];
  if (p) out[threadIdx.x] = p[2];  // cucatch-bug-line
}
int main() {
  int **keep, *out;
  CHECK(cudaMalloc(&keep, 32 * sizeof(int*)));
  CHECK(cudaMemset(keep, 0, 32 * sizeof(int*)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  produce<<<1, 32>>>(keep);
  CHECK(cudaDeviceSynchronize());
  consume<<<1, 32>>>(keep, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
