// cucatch-expect: clean
// cucatch-expect-checked: fill
// Stream-ordered memory in and out of a graph capture (as cuda-samples' graphMemoryNodes): a
// cudaFreeAsync outside any capture leaves its table update in flight, then a capture in the
// thread's global mode allocates, fills and frees memory (graph memory nodes), and the graph is
// launched several times. Nothing cucatch does while the capture runs may end it (its waits on
// frees in flight ran unrelaxed once: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED).
#include "common.h"
__global__ void fill(int* p, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = value + i;
}
__global__ void total(const int* p, int n, unsigned long long* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, (unsigned long long)p[i]);
}
int main() {
  const int n = 1 << 14;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned long long* sum;
  CHECK(cudaMalloc(&sum, sizeof *sum));
  CHECK(cudaMemset(sum, 0, sizeof *sum));
  int* before;
  CHECK(cudaMallocAsync(&before, n * sizeof(int), s));
  fill<<<n / 256, 256, 0, s>>>(before, n, 1);
  CHECK(cudaFreeAsync(before, s));  // its update may still be in flight when the capture starts
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int* p;
  CHECK(cudaMallocAsync(&p, n * sizeof(int), s));
  fill<<<n / 256, 256, 0, s>>>(p, n, 7);
  total<<<n / 256, 256, 0, s>>>(p, n, sum);
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int k = 0; k < 3; ++k) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  unsigned long long h = 0;
  CHECK(cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("sum %llu\n", h);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return 0;
}
