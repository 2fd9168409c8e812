// cucatch-expect: clean
// Pointers that leave the bounds of their allocation and come back before any access:
// inside a kernel, through a __noinline__ function's result, and through device memory
// (an out-of-bounds pointer stored, loaded by another kernel, then moved back).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__device__ __noinline__ const float* advance(const float* p, int k) { return p + k; }

__global__ void in_kernel(const float* a, float* out, int n, int slack) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float* far = advance(a, n + slack);  // out of bounds, not dereferenced
  const float* back = advance(far, i - n - slack);
  if (i < n) out[i] = *back * 2.0f;
}

__global__ void store_far(const float** slot, const float* a, int n, int slack) {
  *slot = a + n + slack;
}

__global__ void load_far(const float* const* slot, float* out, int n, int slack) {
  const float* base = *slot - slack - n;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += base[n - 1 - i];
}

int main() {
  const int n = 250;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = float(i % 17);
  float *a, *out;
  const float** slot;
  CHECK(cudaMalloc(&a, sizeof(h)));
  CHECK(cudaMalloc(&out, sizeof(h)));
  CHECK(cudaMalloc(&slot, sizeof(float*)));
  CHECK(cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice));
  in_kernel<<<2, 128>>>(a, out, n, 5);
  store_far<<<1, 1>>>(slot, a, n, 5);
  load_far<<<2, 128>>>(slot, out, n, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < n; ++i) s += h[i] * (i + 1);
  printf("checksum %.1f\n", s);
  return 0;
}
