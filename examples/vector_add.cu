// A correct program: cucatch must run it silently, with the same output as a plain build.
//   cucatch-nvcc -arch=sm_90 -lineinfo examples/vector_add.cu -o vector_add && ./vector_add
#include <cstdio>
#include <vector>
__global__ void add(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}
int main() {
  const int n = 1 << 20;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  add<<<256, 256>>>(da, db, dc, n);
  cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : c) sum += v;
  printf("sum %.0f (%s)\n", sum, cudaGetErrorString(cudaGetLastError()));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}
