// cucatch-expect: out-of-bounds read 4 kernel=fir object=taps space=const
// A __constant__ array read one element past its end: the read lands in the next __constant__
// array, which Compute Sanitizer never reports.
#include "common.h"
__constant__ float taps[8];
__constant__ float gains[8];
__global__ void fir(const float* in, float* out, int n, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int k = 0; k < ntaps; ++k) s += taps[k] * in[(i + k) % n];  // cucatch-bug-line
  out[i] = s * gains[i % 8];
}
int main() {
  float h[8] = {1, 2, 3, 4, 4, 3, 2, 1};
  CHECK(cudaMemcpyToSymbol(taps, h, sizeof h));
  CHECK(cudaMemcpyToSymbol(gains, h, sizeof h));
  float *in, *out;
  CHECK(cudaMalloc(&in, 256 * sizeof(float)));
  CHECK(cudaMalloc(&out, 256 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 256 * sizeof(float)));
  fir<<<2, 128>>>(in, out, 256, 9);  // one tap too many
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
