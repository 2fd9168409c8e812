// cucatch-expect: out-of-bounds read 16 kernel=sum_quads
// The number of float4s is rounded up, so the last thread's 16-byte load covers bytes
// 992..1007 of a 1000-byte allocation: half of it is out of bounds.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void sum_quads(const float4* a, int nquads, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nquads) { float4 v = a[i]; out[i] = v.x + v.y + v.z + v.w; }  // cucatch-bug-line
}

int main() {
  const int n = 250;  // 1000 bytes
  const int nquads = (n + 3) / 4;  // 63: the last quad is half outside
  float* a;
  float* out;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMemset(a, 0, n * sizeof(float)));
  CHECK(cudaMalloc(&out, nquads * sizeof(float)));
  sum_quads<<<1, 64>>>(reinterpret_cast<const float4*>(a), nquads, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
