// cucatch-expect: clean
#include "common.h"
__global__ void block_sums(const int* in, int n, int* out) {
  extern __shared__ int tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}
int main() {
  const int n = 100000, threads = 256, blocks = (n + threads - 1) / threads;
  static int h[n], sums[blocks];
  for (int i = 0; i < n; ++i) h[i] = i % 17;
  int *in, *out;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&out, blocks * 4));
  CHECK(cudaMemcpy(in, h, n * 4, cudaMemcpyHostToDevice));
  block_sums<<<blocks, threads, threads * sizeof(int)>>>(in, n, out);
  CHECK(cudaMemcpy(sums, out, blocks * 4, cudaMemcpyDeviceToHost));
  long s = 0;
  for (int v : sums) s += v;
  std::printf("sum %ld\n", s);
}
