// cucatch-expect: clean
// cucatch-link: -lcublas
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// cuBLAS (not instrumented) called with the program's buffers (tagged pointers): its kernels
// must receive untagged pointers.
#include <cublas_v2.h>
#include <vector>
#include "common.h"
int main() {
  const int n = 128;
  std::vector<float> a(n * n), b(n * n), c(n * n, 0.0f), x(n), y(n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = (i % 7) * 0.25f;
    b[i] = (i % 5) * 0.5f;
  }
  for (int i = 0; i < n; ++i) x[i] = i, y[i] = 1;
  float *da, *db, *dc, *dx, *dy;
  CHECK(cudaMalloc(&da, n * n * 4));
  CHECK(cudaMalloc(&db, n * n * 4));
  CHECK(cudaMalloc(&dc, n * n * 4));
  sayWhetherTagged(da);
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dy, n * 4));
  CHECK(cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 3;
  float one = 1.0f, zero = 0.0f, two = 2.0f;
  if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n) != CUBLAS_STATUS_SUCCESS) return 4;
  if (cublasSaxpy(h, n, &two, dx, 1, dy, 1) != CUBLAS_STATUS_SUCCESS) return 5;
  CHECK(cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : c) s += v;
  for (float v : y) s += v;
  cublasDestroy(h);
  std::printf("checksum %.2f\n", s);
}
