// cucatch-expect: clean
// Kernels whose arguments are structs holding pointers (by value, and nested with an
// array of pointers), including an interior pointer.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

struct Axpy {
  float alpha;
  const float* x;
  float* y;
  int n;
};
struct Gather {
  const int* index;
  const float* src[3];
  int len[3];
  float* dst;
  int n;
};

__global__ void axpy(Axpy a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.y[i] += a.alpha * a.x[i];
}

__global__ void gather(Gather g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  int which = i % 3;
  g.dst[i] = g.src[which][g.index[i] % g.len[which]];
}

int main() {
  const int n = 250;
  float hx[n], hy[n];
  int hi[n];
  for (int i = 0; i < n; ++i) { hx[i] = float(i % 9); hy[i] = 1.0f; hi[i] = i * 17; }
  float *x, *y, *z;
  int* idx;
  CHECK(cudaMalloc(&x, sizeof(hx)));
  CHECK(cudaMalloc(&y, sizeof(hy)));
  CHECK(cudaMalloc(&z, 100 * sizeof(float)));
  CHECK(cudaMalloc(&idx, sizeof(hi)));
  CHECK(cudaMemcpy(x, hx, sizeof(hx), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy, sizeof(hy), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(idx, hi, sizeof(hi), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(z, 0, 100 * sizeof(float)));
  axpy<<<2, 128>>>(Axpy{2.0f, x, y, n});
  axpy<<<1, 64>>>(Axpy{0.5f, x + 200, z + 50, 50});
  Gather g{idx, {x, y + 10, z}, {n, n - 10, 100}, nullptr, n};
  float* out;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  g.dst = out;
  gather<<<2, 128>>>(g);
  CHECK(cudaGetLastError());
  float h[n];
  CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < n; ++i) s += h[i] * (i % 5 + 1);
  printf("checksum %.2f\n", s);
  return 0;
}
