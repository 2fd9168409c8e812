// cucatch-expect: out-of-bounds write 4 kernel=iota memory=stream-ordered
// Stream-ordered memory (cudaMallocAsync): the last thread writes one element past the end.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void iota(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) p[i] = i;  // cucatch-bug-line
}

int main() {
  const int n = 250;  // 1000 bytes
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* p;
  CHECK(cudaMallocAsync(&p, n * sizeof(int), s));
  iota<<<(n + 128) / 128, 128, 0, s>>>(p, n);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaStreamSynchronize(s));
  printf("done\n");
  return 0;
}
