// cucatch-expect: out-of-bounds write 4 kernel=scale_into memory=managed
// Managed memory (cudaMallocManaged, untagged, checked through the shadow map): the
// last thread writes one float past the end of the 1000-byte output.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void scale_into(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 2.0f * in[0];  // cucatch-bug-line
}

int main() {
  const int n = 250;  // 1000 bytes
  float *in, *out;
  CHECK(cudaMallocManaged(&in, 4096));
  CHECK(cudaMallocManaged(&out, n * sizeof(float)));
  for (int i = 0; i < 1024; ++i) in[i] = 1.0f;
  scale_into<<<(n + 128) / 128, 128>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("out[0] = %.1f\n", out[0]);
  return 0;
}
