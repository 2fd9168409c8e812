// cucatch-expect: use-after-free read 4 kernel=consume memory=device-heap
// cucatch-link: -rdc=true -lcudadevrt
// cucatch-jit-env: CUCATCH_TAGS=1
// The device runtime's cudaMalloc and cudaFree, called in a kernel, are the device heap's
// malloc and free: one kernel allocates a block per thread with cudaMalloc, the next frees one
// with cudaFree, and a third reads through the pointer it kept. The report names the block's
// cudaMalloc and cudaFree, each with its thread and the program's line (both are inline
// functions of the device runtime's header). (Before, cudaFree got the pointer untagged and the
// block's entry stayed live: the stale read passed.)
#include "common.h"
__device__ int* blocks[32];
__global__ void produce() {
  int* p = nullptr;
  if (cudaMalloc(&p, 8 * sizeof(int)) != cudaSuccess) return;  // cucatch-alloc-line
  for (int i = 0; i < 8; ++i) p[i] = i;
  blocks[threadIdx.x] = p;
}
__global__ void release(int which) { cudaFree(blocks[which]); }  // cucatch-free-line
__global__ void consume(int* out) {
  const int* p = blocks[threadIdx.x];
  if (p) out[threadIdx.x] = p[2];  // cucatch-bug-line
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  produce<<<1, 32>>>();
  release<<<1, 1>>>(3);
  consume<<<1, 32>>>(out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
