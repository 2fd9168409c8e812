// cucatch-expect: use-after-free read 4 kernel=consume
// Stream-ordered allocation freed with cudaFreeAsync; a later kernel on the same stream
// still reads it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void produce(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 3 * i;
}

__global__ void consume(const int* p, int* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = p[7];  // cucatch-bug-line
}

int main() {
  const int n = 250;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int *p, *out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMallocAsync(&p, n * sizeof(int), s));
  produce<<<(n + 127) / 128, 128, 0, s>>>(p, n);
  consume<<<1, 32, 0, s>>>(p, out);  // fine
  CHECK(cudaFreeAsync(p, s));
  consume<<<1, 32, 0, s>>>(p, out);  // use after the stream-ordered free
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s));
  printf("done\n");
  return 0;
}
