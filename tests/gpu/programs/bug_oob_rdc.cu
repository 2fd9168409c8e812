// cucatch-expect: out-of-bounds read 4 kernel=sum_rows
// cucatch-link: -rdc=true
// cucatch-sources: lib/heavy_callee.cu
// Relocatable device code (-rdc, CMake's CUDA_SEPARABLE_COMPILATION) is checked: the device link
// removes kernels the host never refers to, which had removed the compilation units' marker
// kernels and left every -rdc program unchecked (cucatch-nvcc now passes nvlink
// -ignore-host-info). The kernel calls a device function of the other unit, then reads one row
// past the end of its input.
#include "common.h"
__device__ float weighted_sum(const float* p, int n);
__global__ void sum_rows(const float* rows, float* out, int rowLength, int nRows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r > nRows) return;
  float s = weighted_sum(rows, rowLength);
  out[r % nRows] = s + rows[size_t(r) * rowLength];  // cucatch-bug-line
}
int main() {
  const int rowLength = 16, nRows = 64;
  float *rows, *out;
  CHECK(cudaMalloc(&rows, rowLength * nRows * sizeof(float)));
  CHECK(cudaMalloc(&out, nRows * sizeof(float)));
  CHECK(cudaMemset(rows, 0, rowLength * nRows * sizeof(float)));
  sum_rows<<<1, 128>>>(rows, out, rowLength, nRows);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
