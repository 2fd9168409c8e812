// cucatch-expect: clean
// cucatch-link: -lcublas
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// cuBLAS (an uninstrumented library) on the program's buffers: cublasSgemm, then
// cublasSaxpy on interior pointers; small integer values keep the results exact. For these
// shapes cuBLAS 13 picks a split-K CUTLASS GEMM that cuBLASLt launches through cuLaunchKernel
// resolved with dlsym on libcuda (not through cuGetProcAddress): its arguments are untagged
// only because cucatch's dlsym hands out the wrapper for such lookups too.
#include <cublas_v2.h>
#include "common.h"
#define CHECK_BLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); exit(2); } } while (0)

__global__ void init(float* p, int n, int mod) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = float(i % mod) - 3.0f;
}

int main() {
  const int m = 61, k = 47, n = 33;  // column-major A m x k, B k x n, C m x n
  float *A, *B, *C;
  CHECK(cudaMalloc(&A, m * k * sizeof(float)));
  CHECK(cudaMalloc(&B, k * n * sizeof(float)));
  CHECK(cudaMalloc(&C, m * n * sizeof(float)));
  sayWhetherTagged(A);
  init<<<(m * k + 127) / 128, 128>>>(A, m * k, 7);
  init<<<(k * n + 127) / 128, 128>>>(B, k * n, 5);
  init<<<(m * n + 127) / 128, 128>>>(C, m * n, 3);
  CHECK(cudaGetLastError());
  cublasHandle_t handle;
  CHECK_BLAS(cublasCreate(&handle));
  const float alpha = 1.0f, beta = 2.0f, a2 = -2.0f;
  CHECK_BLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m));
  // y = a2 * x + y on interior pointers: columns 1.. of C get -2 * the first elements of A
  CHECK_BLAS(cublasSaxpy(handle, m * (n - 1), &a2, A + 5, 1, C + m, 1));
  CHECK(cudaDeviceSynchronize());
  float* h = (float*)malloc(m * n * sizeof(float));
  CHECK(cudaMemcpy(h, C, m * n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < m * n; ++i) s += h[i] * (i % 13 + 1);
  printf("checksum %.1f c00 %.1f clast %.1f\n", s, h[0], h[m * n - 1]);
  CHECK_BLAS(cublasDestroy(handle));
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  CHECK(cudaFree(C));
  free(h);
  return 0;
}
