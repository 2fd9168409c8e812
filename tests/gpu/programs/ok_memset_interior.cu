// cucatch-expect: clean
// cudaMemset / cudaMemcpy (all directions) on interior pointers, up to the last byte.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void bump(unsigned char* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (unsigned char)(p[i] * 3 + 1);
}

int main() {
  const int n = 1000;
  unsigned char h[n], back[n];
  for (int i = 0; i < n; ++i) h[i] = (unsigned char)(i * 7);
  unsigned char *a, *b;
  CHECK(cudaMalloc(&a, n));
  CHECK(cudaMalloc(&b, n));
  CHECK(cudaMemset(a, 0, n));
  CHECK(cudaMemset(a + 10, 0x11, 100));
  CHECK(cudaMemset(a + n - 37, 0x22, 37));               // ends at the last byte
  CHECK(cudaMemcpy(a + 200, h + 3, 333, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy(b + 1, a + 500, n - 500, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemsetAsync(b + n - 1, 0x7f, 1, 0));
  bump<<<1, 256>>>(b + 744, n - 744);                     // a kernel on an interior pointer
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(back, b + 17, n - 17, cudaMemcpyDeviceToHost));
  unsigned long long s = 0;
  for (int i = 0; i < n - 17; ++i) s = s * 31 + back[i];
  CHECK(cudaMemcpy(back, a, n, cudaMemcpyDeviceToHost));
  unsigned long long t = 0;
  for (int i = 0; i < n; ++i) t = t * 31 + back[i];
  printf("checksums %llu %llu\n", s, t);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
