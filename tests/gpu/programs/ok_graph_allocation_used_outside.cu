// cucatch-expect: clean
// A graph's own allocation, made by cudaMallocAsync in a stream capture, used by kernels outside
// the graph, as the CUDA programming guide allows: after each launch of a graph that allocates
// and does not free, the program reads the memory and frees it (cudaFreeAsync), and the next
// launch allocates it again; then a second graph, captured with a cudaFreeAsync of that memory,
// frees it, and a kernel launched after that capture but before that graph's launch still reads
// it. Whether the memory is live when a kernel runs is the graphs' doing, not what the host
// called last: a launch twin given the host's view of it (freed) would report these correct
// reads as use-after-free (found by reading; with the runtime of 487fb0c on an H200, the
// cucatch build reported "use-after-free read of 4 bytes ... of a 262144-byte stream-ordered
// allocation ..., freed" in sum).
#include "common.h"
#include "sum_kernel.h"

__global__ void fill(int* p, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v + i % 11;
}

int main() {
  const int n = 1 << 16;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  auto read = [&](const int* p) {
    CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
    sum<<<32, 256, 0, s>>>(p, n, total);
    CHECK(cudaGetLastError());
    unsigned long long host = 0;
    CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    return host;
  };

  // The graph that allocates: its allocation outlives each launch.
  int* p = nullptr;
  cudaGraph_t allocating;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&p, n * sizeof(int), s));
  fill<<<32, 256, 0, s>>>(p, n, 3);
  CHECK(cudaStreamEndCapture(s, &allocating));
  cudaGraphExec_t allocate;
  CHECK(cudaGraphInstantiate(&allocate, allocating, 0));

  for (int round = 0; round < 3; ++round) {
    CHECK(cudaGraphLaunch(allocate, s));
    std::printf("round %d: %llu\n", round, read(p));
    CHECK(cudaFreeAsync(p, s));
  }

  // A graph that frees it: until that graph runs, the memory is the program's.
  CHECK(cudaGraphLaunch(allocate, s));
  cudaGraph_t freeing;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaStreamEndCapture(s, &freeing));
  cudaGraphExec_t release;
  CHECK(cudaGraphInstantiate(&release, freeing, 0));
  std::printf("before the freeing graph runs: %llu\n", read(p));
  CHECK(cudaGraphLaunch(release, s));
  CHECK(cudaStreamSynchronize(s));

  CHECK(cudaGraphExecDestroy(release));
  CHECK(cudaGraphDestroy(freeing));
  CHECK(cudaGraphExecDestroy(allocate));
  CHECK(cudaGraphDestroy(allocating));
  CHECK(cudaFree(total));
  CHECK(cudaStreamDestroy(s));
  std::printf("done\n");
  return 0;
}
