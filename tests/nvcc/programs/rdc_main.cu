#include <cstdio>
__device__ float twice(const float* p, int i);
__global__ void apply(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice(in, i);
}
int main() {
  float *a, *b;
  cudaMalloc(&a, 256 * 4);
  cudaMalloc(&b, 256 * 4);
  cudaMemset(a, 0, 256 * 4);
  apply<<<1, 256>>>(a, b, 256);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
