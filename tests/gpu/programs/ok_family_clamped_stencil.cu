// cucatch-expect: clean
// A 5x5 clamp-to-edge blur of a 97 x 61 image (odd sizes: every block has edge threads): each
// row's five taps are one address expression at dx = -2..2, checked at their lowest and highest
// address (families, analysis/AddressFamilies.h); every tap stays inside the image, at every
// edge and corner. The checksum is the same in both builds.
#include <vector>

#include "common.h"
__global__ void blur5(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
#pragma unroll
  for (int dy = -2; dy <= 2; ++dy) {
    const float* row = in + size_t(min(max(y + dy, 0), h - 1)) * w;
#pragma unroll
    for (int dx = -2; dx <= 2; ++dx) s += float(dy + 3) * row[min(max(x + dx, 0), w - 1)];
  }
  out[size_t(y) * w + x] = s;
}
int main() {
  const int w = 97, h = 61;
  std::vector<float> host(w * h);
  for (int i = 0; i < w * h; ++i) host[i] = float(i % 7);
  float *in, *out;
  CHECK(cudaMalloc(&in, w * h * sizeof(float)));
  CHECK(cudaMalloc(&out, w * h * sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), w * h * sizeof(float), cudaMemcpyHostToDevice));
  blur5<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(in, out, w, h);
  CHECK(cudaMemcpy(host.data(), out, w * h * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < w * h; ++i) sum += host[i] * double(1 + i % 3);
  std::printf("checksum %.1f\n", sum);
}
