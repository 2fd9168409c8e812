// cucatch-expect: clean
// cucatch-link: -rdc=true -lcudadevrt
// Dynamic parallelism with instrumented parents and children: the parent allocates with the
// device runtime's cudaMalloc into a struct it reaches through a tagged pointer (the device
// runtime, not instrumented, writes through its argument: cucatch untags it), and launches a
// child of 1024 threads (the child's registers are capped like any kernel's).
#include "common.h"
struct Node {
  float* data;
  int n;
};
__global__ void fill(float* p, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}
__global__ void sum(const float* p, int n, float* out) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += p[i];
  *out = s;
}
__global__ void parent(Node* nodes, int count, float* sums) {
  int t = threadIdx.x;
  if (t >= count) return;
  if (cudaMalloc((void**)&nodes[t].data, nodes[t].n * sizeof(float)) != cudaSuccess) return;
  fill<<<(nodes[t].n + 1023) / 1024, 1024>>>(nodes[t].data, nodes[t].n, float(t));
  sum<<<1, 1, 0, cudaStreamTailLaunch>>>(nodes[t].data, nodes[t].n, &sums[t]);
}
__global__ void release(Node* nodes, int count) {
  int t = threadIdx.x;
  if (t < count) cudaFree(nodes[t].data);
}
int main() {
  const int count = 8;
  Node h[count];
  for (int i = 0; i < count; ++i) h[i] = {nullptr, 2000 + 100 * i};
  Node* nodes;
  float* sums;
  CHECK(cudaMalloc(&nodes, sizeof h));
  CHECK(cudaMalloc(&sums, count * 4));
  CHECK(cudaMemcpy(nodes, h, sizeof h, cudaMemcpyHostToDevice));
  parent<<<1, 32>>>(nodes, count, sums);
  CHECK(cudaDeviceSynchronize());
  release<<<1, 32>>>(nodes, count);
  CHECK(cudaDeviceSynchronize());
  float hs[count];
  CHECK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
  for (float s : hs) std::printf("%.0f ", s);
  std::printf("\n");
}
