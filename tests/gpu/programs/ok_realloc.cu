// cucatch-expect: clean
// Free and re-allocate buffers of the same size over and over (the driver hands back the
// same addresses); every kernel uses only the live pointer.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void square_plus(const int* in, int* out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (in[i] * in[i] + k) % 10007;
}

int main() {
  const int n = 250;  // 1000 bytes
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *cur;
  CHECK(cudaMalloc(&cur, sizeof(h)));
  CHECK(cudaMemcpy(cur, h, sizeof(h), cudaMemcpyHostToDevice));
  for (int round = 0; round < 50; ++round) {
    int* next;
    CHECK(cudaMalloc(&next, sizeof(h)));
    square_plus<<<1, 256>>>(cur, next, n, round);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(cur));
    cur = next;
  }
  CHECK(cudaMemcpy(h, cur, sizeof(h), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += (long long)h[i] * (i + 1);
  printf("checksum %lld\n", s);
  CHECK(cudaFree(cur));
  return 0;
}
