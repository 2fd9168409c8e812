// cucatch-expect: clean
// cucatch-expect-checked: each_row
// cucatch-link: -rdc=true
// cucatch-sources: lib/heavy_callee.cu
// Launch validity across compilation units (-rdc): the kernel here calls a device function of
// another unit, which ptxas compiles on its own; after linking, the kernel runs with the larger
// count of the two. Instrumented without a cap the callee needs 84 registers and a 1024-thread
// block no longer launches; cucatch-ptx measures device functions of relocatable code too and
// compiles the callee's unit with -maxrregcount=64 (its original 60 admitted 1024 threads).
#include <cmath>
#include <vector>
#include "common.h"
__device__ float weighted_sum(const float* p, int n);
__global__ void each_row(const float* rows, float* out, int rowLength, int nRows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < nRows) out[r] = weighted_sum(rows + size_t(r) * rowLength, rowLength);
}
int main() {
  const int rowLength = 16, nRows = 4096;
  std::vector<float> rows(size_t(rowLength) * nRows), out(nRows);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = float(i % 7) * 0.25f;
  float *dRows, *dOut;
  CHECK(cudaMalloc(&dRows, rows.size() * 4));
  CHECK(cudaMalloc(&dOut, nRows * 4));
  CHECK(cudaMemcpy(dRows, rows.data(), rows.size() * 4, cudaMemcpyHostToDevice));
  each_row<<<nRows / 1024, 1024>>>(dRows, dOut, rowLength, nRows);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dOut, nRows * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < nRows; ++r) {
    const float* p = rows.data() + size_t(r) * rowLength;
    float acc[8] = {0}, s = 0;
    for (int i = 0; i < rowLength; ++i) acc[i & 7] += p[i] * p[(i * 7) % rowLength] + p[(i * 13) % rowLength];
    for (int k = 0; k < 8; ++k) s += acc[k] * p[k];
    if (std::fabs(s - out[r]) > 1e-3f * std::fabs(s) + 1e-3f) {
      std::fprintf(stderr, "row %d: %f, expected %f\n", r, out[r], s);
      return 1;
    }
  }
  std::printf("%d rows summed with 1024-thread blocks\n", nRows);
  return 0;
}
