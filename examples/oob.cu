// A bug cucatch reports: one thread writes one element past the end of a cudaMalloc'ed array.
//   cucatch-nvcc -arch=sm_90 -lineinfo examples/oob.cu -o oob && ./oob
#include <cstdio>
__global__ void scale(float* p, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) p[i] *= f;  // should be i < n
}
int main() {
  const int n = 1000;
  float* p;
  cudaMalloc(&p, n * sizeof(float));
  cudaMemset(p, 0, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(p, n, 2.0f);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
