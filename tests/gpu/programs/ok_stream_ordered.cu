// cucatch-expect: clean
// Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) in a loop on two streams;
// the pool hands the same addresses out again, and only the live pointer is used.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void iota(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}
__global__ void fold(const int* p, int n, long long* acc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(reinterpret_cast<unsigned long long*>(acc), (unsigned long long)(p[i] % 1000));
}

int main() {
  cudaStream_t s[2];
  for (auto& st : s) CHECK(cudaStreamCreate(&st));
  long long* acc;
  CHECK(cudaMalloc(&acc, 2 * sizeof(long long)));
  CHECK(cudaMemset(acc, 0, 2 * sizeof(long long)));
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 2; ++k) {
      int n = 250 + 17 * round + k;  // 1000 bytes and up
      int* p;
      CHECK(cudaMallocAsync(&p, n * sizeof(int), s[k]));
      iota<<<(n + 255) / 256, 256, 0, s[k]>>>(p, n, round * 100);
      fold<<<(n + 255) / 256, 256, 0, s[k]>>>(p, n, acc + k);
      CHECK(cudaFreeAsync(p, s[k]));
    }
  }
  CHECK(cudaGetLastError());
  for (auto& st : s) CHECK(cudaStreamSynchronize(st));
  long long h[2];
  CHECK(cudaMemcpy(h, acc, sizeof(h), cudaMemcpyDeviceToHost));
  printf("acc %lld %lld\n", h[0], h[1]);
  return 0;
}
