// cucatch-expect: clean
#include "common.h"
__global__ void scale(float* p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(p) + y * pitch);
    row[x] = row[x] * 2.0f + y;
  }
}
int main() {
  const int w = 301, h = 77;
  static float host[h][w];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) host[y][x] = x;
  float* p;
  size_t pitch;
  CHECK(cudaMallocPitch(&p, &pitch, w * sizeof(float), h));
  CHECK(cudaMemcpy2D(p, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  scale<<<dim3((w + 127) / 128, h), 128>>>(p, pitch, w, h);
  CHECK(cudaMemcpy2D(host, w * sizeof(float), p, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  double s = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) s += host[y][x];
  std::printf("sum %.1f\n", s);
}
