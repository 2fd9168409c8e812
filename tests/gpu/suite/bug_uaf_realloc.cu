// cucatch-expect: use-after-free write 4 kernel=store_value
// A buffer is freed and a new one of the same size is allocated (usually at the same
// address); a kernel then writes through the stale pointer to the old buffer.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void store_value(float* buf, float v) {
  if (blockIdx.x == 0 && threadIdx.x == 0) buf[0] = v;  // cucatch-bug-line
}

int main() {
  const size_t bytes = 1000;
  float *old_buf, *new_buf;
  CHECK(cudaMalloc(&old_buf, bytes));
  store_value<<<1, 32>>>(old_buf, 1.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(old_buf));
  CHECK(cudaMalloc(&new_buf, bytes));  // same size: the allocator may hand back the same address
  CHECK(cudaMemset(new_buf, 0, bytes));
  store_value<<<1, 32>>>(new_buf, 2.0f);  // fine
  store_value<<<1, 32>>>(old_buf, 3.0f);  // stale pointer
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float v;
  CHECK(cudaMemcpy(&v, new_buf, sizeof(float), cudaMemcpyDeviceToHost));
  printf("new_buf[0] = %.1f\n", v);
  return 0;
}
