// cucatch-expect: clean
// A CUDA graph made by stream capture (copies and several kernels), instantiated once
// and launched several times.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void scale(const int* in, int* out, const int* round, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i] + *round;
}
__global__ void accumulate(const int* b, long long* acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += b[i];
}
__global__ void next_round(int* round) { *round += 1; }

int main() {
  const int n = 1000;
  int *h_in, *d_in, *d_b, *d_round;
  long long *h_out, *d_acc, *d_snap;
  CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
  CHECK(cudaMallocHost(&h_out, n * sizeof(long long)));
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_b, n * sizeof(int)));
  CHECK(cudaMalloc(&d_round, sizeof(int)));
  CHECK(cudaMalloc(&d_acc, n * sizeof(long long)));
  CHECK(cudaMalloc(&d_snap, n * sizeof(long long)));
  CHECK(cudaMemset(d_round, 0, sizeof(int)));
  CHECK(cudaMemset(d_acc, 0, n * sizeof(long long)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice, s));
  scale<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_b, d_round, n);
  accumulate<<<(n + 255) / 256, 256, 0, s>>>(d_b, d_acc, n);
  next_round<<<1, 1, 0, s>>>(d_round);
  CHECK(cudaMemcpyAsync(d_snap, d_acc, n * sizeof(long long), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaMemcpyAsync(h_out, d_snap, n * sizeof(long long), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 5; ++launch) {
    for (int i = 0; i < n; ++i) h_in[i] = (i * 13 + launch) % 50;
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += h_out[i] * (i % 9 + 1);
    printf("launch %d checksum %lld\n", launch, sum);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
