// cucatch-expect: out-of-bounds read 4 kernel=shift_left memory=shared
// Dynamic shared memory of n floats; the last thread reads s[n], past the dynamic size.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void shift_left(const float* in, float* out) {
  extern __shared__ float s[];
  int i = threadIdx.x;
  s[i] = in[i];
  __syncthreads();
  out[i] = s[i + 1];  // cucatch-bug-line
}

int main() {
  const int n = 250;  // 1000 bytes of dynamic shared memory
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = float(i);
  float *in, *out;
  CHECK(cudaMalloc(&in, sizeof(h)));
  CHECK(cudaMalloc(&out, sizeof(h)));
  CHECK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  shift_left<<<1, n, n * sizeof(float)>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
