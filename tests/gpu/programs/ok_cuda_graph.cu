// cucatch-expect: clean
#include "common.h"
__global__ void add(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}
__global__ void scale(float* y, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= f;
}
int main() {
  const int n = 4096;
  float *x, *y, h[n];
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  CHECK(cudaMalloc(&x, n * 4));
  CHECK(cudaMalloc(&y, n * 4));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(y, 0, n * 4));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  add<<<n / 256, 256, 0, s>>>(y, x, n);
  scale<<<n / 256, 256, 0, s>>>(y, n, 0.5f);
  CHECK(cudaMemcpyAsync(x, y, n * 4, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int k = 0; k < 5; ++k) CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(h, y, n * 4, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : h) sum += v;
  std::printf("sum %.4f\n", sum);
}
