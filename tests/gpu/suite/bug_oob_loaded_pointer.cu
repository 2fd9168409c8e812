// cucatch-expect: out-of-bounds read 4 kernel=gather_row
// The row pointer is loaded from an array of pointers in device memory; the kernel
// uses the length of the longest row for every row, so it reads past the shorter one.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void gather_row(float* const* rows, int row, int len, float* out) {
  const float* r = rows[row];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) out[i] = r[i];  // cucatch-bug-line
}

int main() {
  const int lens[3] = {256, 250, 256};  // row 1 is 1000 bytes
  float* rows[3];
  for (int r = 0; r < 3; ++r) {
    CHECK(cudaMalloc(&rows[r], lens[r] * sizeof(float)));
    CHECK(cudaMemset(rows[r], 0, lens[r] * sizeof(float)));
  }
  float** d_rows;
  float* out;
  CHECK(cudaMalloc(&d_rows, sizeof(rows)));
  CHECK(cudaMemcpy(d_rows, rows, sizeof(rows), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&out, 256 * sizeof(float)));
  gather_row<<<1, 256>>>(d_rows, 0, 256, out);  // fine
  gather_row<<<1, 256>>>(d_rows, 1, 251, out);  // one element too many for row 1
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
