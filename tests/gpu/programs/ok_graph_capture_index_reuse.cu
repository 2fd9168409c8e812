// cucatch-expect: clean
// A graph captured with a stream-ordered allocation and free inside it (graph memory nodes, as
// PyTorch's CUDA graphs on its cudaMallocAsync backend make them), launched again after the
// program made and freed hundreds of other buffers and made new ones. cucatch's table writes
// for the graph's allocation are captured with it, values and all, so every launch writes that
// allocation's entry again: no buffer made later may be given its entry, or each launch would
// write over that buffer's (found by reading the design; docs/design.md, "Device tables").
// A direct tag is an entry's index (the graph's allocation had one before the fix), so the
// program makes new buffers until one carries the graph allocation's tag, or 256 of them (the
// plain build stops at the first: no tags), and reads every one back after the graph's next
// launch, through a pointer loaded from memory (a parameter's bounds come from the host, which
// the relaunch does not change). With the runtime of 92a058c (H200): the 36th buffer carried the
// tag, and its read was reported as a use-after-free of the graph's 16384-byte stream-ordered
// allocation (before the pointer was loaded from memory, the program passed there too).
#include <cstdint>
#include <vector>

#include "common.h"
#include "sum_kernel.h"

__global__ void fill(int* p, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v + i % 13;
}

// The same through a pointer the kernel loads from memory: its checks look its allocation up in
// the device's tables (a pointer parameter's bounds come with the launch, from the host's).
__global__ void sumLoaded(const int* const* slot, int n, unsigned long long* total) {
  const int* p = *slot;
  unsigned long long s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i];
  atomicAdd(total, s);
}

static unsigned long long expected(int n, int v) {
  unsigned long long s = 0;
  for (int i = 0; i < n; ++i) s += v + i % 13;
  return s;
}

int main() {
  const int n = 1 << 12;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  const int** slot = nullptr;
  CHECK(cudaMalloc(&slot, sizeof *slot));
  auto read = [&](const int* p) {
    CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
    CHECK(cudaMemcpyAsync(slot, &p, sizeof p, cudaMemcpyHostToDevice, s));
    sumLoaded<<<16, 256, 0, s>>>(slot, n, total);
    unsigned long long host = 0;
    CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    return host;
  };

  int* inGraph = nullptr;
  cudaGraph_t graph;
  CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&inGraph, n * sizeof(int), s));
  fill<<<16, 256, 0, s>>>(inGraph, n, 5);
  sum<<<16, 256, 0, s>>>(inGraph, n, total);
  CHECK(cudaFreeAsync(inGraph, s));
  CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const uintptr_t graphTag = reinterpret_cast<uintptr_t>(inGraph) >> 56;

  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 200; ++k) {  // buffers made and freed: their entries go round
      int* q = nullptr;
      CHECK(cudaMalloc(&q, 4096));
      fill<<<4, 256, 0, s>>>(q, 1024, k);
      CHECK(cudaStreamSynchronize(s));
      CHECK(cudaFree(q));
    }
    std::vector<int*> live;
    for (int k = 0; k < 256; ++k) {
      int* q = nullptr;
      CHECK(cudaMalloc(&q, n * sizeof(int)));
      fill<<<16, 256, 0, s>>>(q, n, k);
      live.push_back(q);
      if ((reinterpret_cast<uintptr_t>(q) >> 56) == graphTag) break;
    }
    // (stderr: which buffer carries the graph allocation's tag, where cucatch tags pointers)
    std::fprintf(stderr, "round %d: graph allocation's tag %#llx, buffer %zu of %zu carries it: %s\n", round,
                 static_cast<unsigned long long>(graphTag), live.size() - 1, live.size(),
                 (reinterpret_cast<uintptr_t>(live.back()) >> 56) == graphTag ? "yes" : "no");
    CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
    CHECK(cudaGraphLaunch(exec, s));
    unsigned long long fromGraph = 0;
    CHECK(cudaMemcpyAsync(&fromGraph, total, sizeof fromGraph, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("graph round %d: %llu (expected %llu)\n", round, fromGraph, expected(n, 5));
    bool right = true;
    for (size_t i = 0; i < live.size(); ++i) right = right && read(live[i]) == expected(n, static_cast<int>(i));
    std::printf("round %d: every buffer made since reads back right: %s\n", round, right ? "yes" : "no");
    for (int* q : live) CHECK(cudaFree(q));
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(slot));
  CHECK(cudaFree(total));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
