// cucatch-expect: clean
// cucatch-link: -rdc=true -lcudadevrt
// The device runtime's cudaMalloc and cudaFree in kernels, used correctly and mixed with malloc
// and free (in a kernel they are one heap: a block of one may be freed by the other), across
// kernels: every block is checked as malloc's are, and the program runs as without cucatch.
#include "common.h"
__global__ void make(int** blocks, int n) {
  int t = threadIdx.x;
  int* p = nullptr;
  if (t % 2 == 0) {
    if (cudaMalloc(&p, n * sizeof(int)) != cudaSuccess) p = nullptr;
  } else {
    p = static_cast<int*>(malloc(n * sizeof(int)));
  }
  if (p)
    for (int i = 0; i < n; ++i) p[i] = t + i;
  blocks[t] = p;
}
__global__ void sum_and_release(int** blocks, int n, int* out) {
  int t = threadIdx.x;
  int* p = blocks[t];
  if (!p) return;
  int s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  atomicAdd(out, s);
  if (t % 3 == 0) cudaFree(p);  // malloc's blocks too
  else free(p);                 // cudaMalloc's blocks too
  blocks[t] = nullptr;
}
int main() {
  const int threads = 64, n = 100;
  int** blocks;
  int* out;
  CHECK(cudaMalloc(&blocks, threads * sizeof(int*)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  for (int round = 0; round < 3; ++round) {
    make<<<1, threads>>>(blocks, n);
    CHECK(cudaGetLastError());
    sum_and_release<<<1, threads>>>(blocks, n, out);
    CHECK(cudaDeviceSynchronize());
  }
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  std::printf("sum %d\n", sum);
}
