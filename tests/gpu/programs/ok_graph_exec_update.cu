// cucatch-expect: clean
// An instantiated graph updated in place, as programs that capture one step per iteration do
// (llama.cpp captures each token's work and cudaGraphExecUpdate's its executable graph):
// every round captures the same kernels on buffers allocated anew, updates the executable
// graph with the capture and launches it; then a kernel node's arguments are set on the
// executable graph directly (cudaGraphExecKernelNodeSetParams). The kernels must run on the
// new buffers, checked against them: the output is the plain build's.
#include <vector>

#include "common.h"

__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i % 11;
}

__global__ void add(const int* a, int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

__global__ void total(const int* b, int n, unsigned long long* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, static_cast<unsigned long long>(b[i]));
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned long long* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof *out));
  cudaGraphExec_t exec = nullptr;
  for (int round = 0; round < 6; ++round) {
    const int n = 4096 * (1 + round % 3);  // the sizes change, and so do the buffers
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    fill<<<(n + 255) / 256, 256, 0, s>>>(a, n, round);
    fill<<<(n + 255) / 256, 256, 0, s>>>(b, n, 100 * round);
    add<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
    CHECK(cudaMemsetAsync(out, 0, sizeof *out, s));
    total<<<(n + 255) / 256, 256, 0, s>>>(b, n, out);
    CHECK(cudaStreamEndCapture(s, &graph));
    if (!exec) {
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
    } else {
      cudaGraphExecUpdateResultInfo info;
      CHECK(cudaGraphExecUpdate(exec, graph, &info));
    }
    CHECK(cudaGraphLaunch(exec, s));
    unsigned long long host = 0;
    CHECK(cudaMemcpyAsync(&host, out, sizeof host, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("round %d: %llu\n", round, host);
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  CHECK(cudaGraphExecDestroy(exec));

  // A kernel node's arguments set on the executable graph.
  const int n = 8192;
  int *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  int v = 5, count = n;
  void* args[] = {&a, &count, &v};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(fill);
  p.gridDim = dim3(n / 256);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &p));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, s));
  void* other[] = {&b, &count, &v};
  p.kernelParams = other;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, node, &p));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> ha(n), hb(n);
  CHECK(cudaMemcpy(ha.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hb.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long sa = 0, sb = 0;
  for (int i = 0; i < n; ++i) sa += ha[i], sb += hb[i];
  std::printf("set params: %lld %lld\n", sa, sb);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(out));
  return 0;
}
