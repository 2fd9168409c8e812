#include <cstdio>
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
  const int n = 1024;
  float *x, *y;
  if (cudaMalloc(&x, n * 4) != cudaSuccess || cudaMalloc(&y, n * 4) != cudaSuccess) return 1;
  cudaMemset(x, 0, n * 4);
  cudaMemset(y, 0, n * 4);
  saxpy<<<n / 256, 256>>>(2.0f, x, y, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
