// cucatch-expect: clean
// A pitched 2D array: cudaMallocPitch, cudaMemcpy2D both ways, a kernel that addresses
// rows through the pitch (touching the last element of the last row).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void transform(float* m, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(m) + y * pitch);
  row[x] = row[x] * 2.0f + float(y);
}

int main() {
  const int width = 250, height = 37;  // rows of 1000 bytes
  float* h = (float*)malloc(width * height * sizeof(float));
  for (int i = 0; i < width * height; ++i) h[i] = float(i % 251);
  float* m;
  size_t pitch;
  CHECK(cudaMallocPitch(&m, &pitch, width * sizeof(float), height));
  CHECK(cudaMemcpy2D(m, pitch, h, width * sizeof(float), width * sizeof(float), height,
                     cudaMemcpyHostToDevice));
  dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
  transform<<<grid, block>>>(m, pitch, width, height);
  transform<<<grid, block>>>(m, pitch, width, height);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy2D(h, width * sizeof(float), m, pitch, width * sizeof(float), height,
                     cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < width * height; ++i) s += h[i] * (i % 7 + 1);
  printf("checksum %.1f\n", s);
  CHECK(cudaFree(m));
  free(h);
  return 0;
}
