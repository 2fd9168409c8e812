// One file: a kernel, host code, printf from the device.
#include <cstdio>
__global__ void scale(float* p, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= f;
}
int main() {
  const int n = 1000;
  float* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(float)) != cudaSuccess) return 2;
  cudaMemset(p, 0, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(p, n, 2.0f);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
