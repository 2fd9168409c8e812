// cucatch-expect: out-of-bounds read 4 kernel=row_sums memory=pitched
// A pitched 2D allocation (cudaMallocPitch) with rows summed for y <= height: the thread
// for the row past the last one reads beyond pitch * height.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void row_sums(const float* m, size_t pitch, int width, int height, float* sums) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y > height) return;
  const float* row = reinterpret_cast<const float*>(reinterpret_cast<const char*>(m) + y * pitch);
  float s = 0.0f;
  for (int x = 0; x < width; ++x)
    s += row[x];  // cucatch-bug-line
  sums[y] = s;
}

int main() {
  const int width = 250, height = 8;
  float* m;
  size_t pitch;
  CHECK(cudaMallocPitch(&m, &pitch, width * sizeof(float), height));
  CHECK(cudaMemset2D(m, pitch, 0, width * sizeof(float), height));
  float* sums;
  CHECK(cudaMalloc(&sums, (height + 1) * sizeof(float)));
  row_sums<<<1, 32>>>(m, pitch, width, height, sums);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
