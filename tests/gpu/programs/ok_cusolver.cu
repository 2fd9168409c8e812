// cucatch-expect: clean
// cucatch-link: -lcusolver
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// cuSOLVER's dense Cholesky and LU with the program's matrix, workspace and info word.
#include <cusolverDn.h>
#include <vector>
#include "common.h"
int main() {
  const int n = 256;
  std::vector<double> a(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a[i * n + j] = i == j ? n + 1.0 : 1.0 / (1 + (i + j) % 7);
  double *dA, *dB, *work;
  int *info, *pivots;
  CHECK(cudaMalloc(&dA, n * n * 8));
  CHECK(cudaMalloc(&dB, n * n * 8));
  CHECK(cudaMalloc(&info, 4));
  CHECK(cudaMalloc(&pivots, n * 4));
  sayWhetherTagged(dA);
  CHECK(cudaMemcpy(dA, a.data(), n * n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, a.data(), n * n * 8, cudaMemcpyHostToDevice));
  cusolverDnHandle_t h;
  if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS) return 2;
  int lwork = 0, lwork2 = 0;
  cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, &lwork);
  cusolverDnDgetrf_bufferSize(h, n, n, dB, n, &lwork2);
  CHECK(cudaMalloc(&work, std::max(lwork, lwork2) * 8));
  if (cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, work, lwork, info) != CUSOLVER_STATUS_SUCCESS) return 2;
  int hinfo = -1;
  CHECK(cudaMemcpy(&hinfo, info, 4, cudaMemcpyDeviceToHost));
  std::vector<double> l(n * n);
  CHECK(cudaMemcpy(l.data(), dA, n * n * 8, cudaMemcpyDeviceToHost));
  double trace = 0;
  for (int i = 0; i < n; ++i) trace += l[i * n + i];
  std::printf("potrf info %d trace %.6f\n", hinfo, trace);
  if (cusolverDnDgetrf(h, n, n, dB, n, work, pivots, info) != CUSOLVER_STATUS_SUCCESS) return 2;
  CHECK(cudaMemcpy(&hinfo, info, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(l.data(), dB, n * n * 8, cudaMemcpyDeviceToHost));
  double det = 0;
  for (int i = 0; i < n; ++i) det += std::log(std::fabs(l[i * n + i]));
  std::printf("getrf info %d log det %.6f\n", hinfo, det);
  cusolverDnDestroy(h);
}
