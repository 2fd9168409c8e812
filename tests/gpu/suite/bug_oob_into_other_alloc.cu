// cucatch-expect: out-of-bounds write 4 kernel=scatter
// A far out-of-bounds write through `a` that lands inside another live allocation `b`.
// Plain CUDA (and compute-sanitizer memcheck) see a valid address; the access is still
// outside the object `a` points to.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void scatter(float* a, const long long* index, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[index[i]] = float(i);  // cucatch-bug-line
}

int main() {
  const int n = 250;  // a: 1000 bytes
  float *a, *b;
  long long* index;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, 4096));
  CHECK(cudaMemset(b, 0, 4096));
  CHECK(cudaMalloc(&index, n * sizeof(long long)));
  // The index of b[16] relative to a. Only the low 48 address bits are compared, so the
  // distance is the same whether or not the pointers carry tags in their upper bits.
  const uint64_t mask = (uint64_t(1) << 48) - 1;
  long long distance = (long long)((uint64_t)b & mask) - (long long)((uint64_t)a & mask);
  long long h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  h[200] = (distance + 16 * (long long)sizeof(float)) / (long long)sizeof(float);  // the bad index
  CHECK(cudaMemcpy(index, h, sizeof(h), cudaMemcpyHostToDevice));
  scatter<<<(n + 127) / 128, 128>>>(a, index, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float b16;
  CHECK(cudaMemcpy(&b16, b + 16, sizeof(float), cudaMemcpyDeviceToHost));
  printf("b[16] = %.1f\n", b16);
  return 0;
}
