// cucatch-expect: clean
// cucatch-link: -lcusparse
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// cuSPARSE's generic API keeps the program's buffers in descriptors: a CSR SpMV with the
// library's own buffer query and a buffer of the program's, with zero- and one-based indices
// and two algorithms. With one-based indices cuSPARSE hands its kernels pointers a few elements
// before the program's arrays (as cuSolverSp's samples found), which must be untagged too.
#include <cusparse.h>
#include <vector>
#include "common.h"
#define SPARSE(call)                                                                \
  do {                                                                              \
    cusparseStatus_t r_ = (call);                                                   \
    if (r_ != CUSPARSE_STATUS_SUCCESS) {                                            \
      std::fprintf(stderr, "%s:%d: %s: cuSPARSE error %d\n", __FILE__, __LINE__, #call, r_); \
      std::exit(2);                                                                 \
    }                                                                               \
  } while (0)
int main() {
  const int n = 1 << 14;
  std::vector<int> rows(n + 1), cols;
  std::vector<float> vals, x(n, 1.0f);
  for (int i = 0; i < n; ++i) {
    rows[i] = cols.size();
    for (int j = i - 2; j <= i + 2; ++j)
      if (j >= 0 && j < n) cols.push_back(j), vals.push_back(j == i ? 4.0f : -1.0f + 0.01f * (i % 3));
  }
  rows[n] = cols.size();
  int nnz = cols.size();
  int *dRows, *dCols;
  float *dVals, *dx, *dy;
  CHECK(cudaMalloc(&dRows, (n + 1) * 4));
  CHECK(cudaMalloc(&dCols, nnz * 4));
  CHECK(cudaMalloc(&dVals, nnz * 4));
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dy, n * 4));
  sayWhetherTagged(dx);
  CHECK(cudaMemcpy(dVals, vals.data(), nnz * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  cusparseHandle_t handle;
  SPARSE(cusparseCreate(&handle));
  for (int base : {0, 1}) {
    std::vector<int> r(rows), c(cols);
    for (int& v : r) v += base;
    for (int& v : c) v += base;
    CHECK(cudaMemcpy(dRows, r.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dCols, c.data(), nnz * 4, cudaMemcpyHostToDevice));
    for (cusparseSpMVAlg_t alg : {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2}) {
      cusparseSpMatDescr_t A;
      cusparseDnVecDescr_t X, Y;
      SPARSE(cusparseCreateCsr(&A, n, n, nnz, dRows, dCols, dVals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
      SPARSE(cusparseCreateDnVec(&X, n, dx, CUDA_R_32F));
      SPARSE(cusparseCreateDnVec(&Y, n, dy, CUDA_R_32F));
      float alpha = 1.0f, beta = 0.0f;
      size_t bytes = 0;
      SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, CUDA_R_32F,
                                     alg, &bytes));
      void* buffer;
      CHECK(cudaMalloc(&buffer, bytes ? bytes : 1));
      SPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, CUDA_R_32F, alg, buffer));
      std::vector<float> y(n);
      CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
      double s = 0;
      for (float v : y) s += v;
      std::printf("base %d algorithm %d: spmv sum %.2f\n", base, int(alg), s);
      CHECK(cudaFree(buffer));
      cusparseDestroySpMat(A);
      cusparseDestroyDnVec(X);
      cusparseDestroyDnVec(Y);
    }
  }
  cusparseDestroy(handle);
}
