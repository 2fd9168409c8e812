// cucatch-expect: clean
// cucatch-link: -lcublas -lcusolver
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// Batched cuBLAS and cuSOLVER calls read their matrices' addresses from arrays in device memory,
// which the program filled with (tagged) pointers from cudaMalloc. The libraries' kernels are
// not instrumented and read those arrays themselves, so the runtime hands each call an
// untagged copy of its arrays, made and freed in the handle's stream: a batched GEMM, a
// GemmBatchedEx, a grouped batched GEMM (the arrays hold the sum of the group sizes), an LU
// factorization and solve (as the cuda-samples simpleCUBLAS_LU and batchCUBLAS do), and a
// batched Cholesky factorization and solve. The array of one call is an interior pointer into
// a larger array of the program, on a stream of its own.
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <vector>
#include "common.h"

#define CHECK_BLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); std::exit(2); } } while (0)
#define CHECK_SOLVER(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: cusolver status %d\n", __FILE__, __LINE__, #x, (int)s_); std::exit(2); } } while (0)

const int n = 32, batches = 4;

// `batches` n x n matrices, each its own allocation, and a device array of their addresses.
struct Batch {
  std::vector<float*> host;
  float** device = nullptr;
  explicit Batch(int seed, bool spd = false) {
    std::vector<float> h(n * n);
    for (int i = 0; i < batches; ++i) {
      float* p;
      CHECK(cudaMalloc(&p, n * n * sizeof(float)));
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
          h[c * n + r] = spd ? (r == c ? n + 1.0f + i : 1.0f / (1 + r + c)) : float((r * 3 + c + seed + i) % 7) - 3.0f + (r == c ? 8.0f : 0.0f);
      CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
      host.push_back(p);
    }
    CHECK(cudaMalloc(&device, batches * sizeof(float*)));
    CHECK(cudaMemcpy(device, host.data(), batches * sizeof(float*), cudaMemcpyHostToDevice));
  }
  double checksum() const {
    std::vector<float> h(n * n);
    double s = 0;
    for (int i = 0; i < batches; ++i) {
      CHECK(cudaMemcpy(h.data(), host[i], h.size() * sizeof(float), cudaMemcpyDeviceToHost));
      for (int j = 0; j < n * n; ++j) s += h[j] * (j % 7 + 1) * (i + 1);
    }
    return s;
  }
};

int main() {
  Batch a(1), b(2), c(3);
  sayWhetherTagged(a.host[0]);
  cublasHandle_t handle;
  CHECK_BLAS(cublasCreate(&handle));
  const float one = 1.0f, zero = 0.0f;
  CHECK_BLAS(cublasSgemmBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.device, n, b.device, n, &zero,
                                c.device, n, batches));
  CHECK(cudaDeviceSynchronize());
  std::printf("gemm batched: %.1f\n", c.checksum());

  CHECK_BLAS(cublasGemmBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, (const void* const*)a.device,
                                 CUDA_R_32F, n, (const void* const*)b.device, CUDA_R_32F, n, &zero,
                                 (void* const*)c.device, CUDA_R_32F, n, batches, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT));
  CHECK(cudaDeviceSynchronize());
  std::printf("gemm batched ex: %.1f\n", c.checksum());

  // Two groups of two: each array holds four pointers.
  cublasOperation_t ops[2] = {CUBLAS_OP_N, CUBLAS_OP_N};
  int dims[2] = {n, n}, groupSize[2] = {2, 2};
  float alphas[2] = {1.0f, 2.0f}, betas[2] = {0.0f, 0.0f};
  CHECK_BLAS(cublasSgemmGroupedBatched(handle, ops, ops, dims, dims, dims, alphas, a.device, dims, b.device, dims,
                                       betas, c.device, dims, 2, groupSize));
  CHECK(cudaDeviceSynchronize());
  std::printf("gemm grouped batched: %.1f\n", c.checksum());

  // LU with pivoting, then a solve, on a stream of the handle's own; the arrays passed are
  // interior pointers (the second half of a four-element array: two matrices).
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK_BLAS(cublasSetStream(handle, stream));
  int *pivots, *info;
  CHECK(cudaMalloc(&pivots, batches * n * sizeof(int)));
  CHECK(cudaMalloc(&info, batches * sizeof(int)));
  CHECK_BLAS(cublasSgetrfBatched(handle, n, a.device + 2, n, pivots, info, batches - 2));
  int hostInfo = 0;
  CHECK_BLAS(cublasSgetrsBatched(handle, CUBLAS_OP_N, n, n, a.device + 2, n, pivots, b.device + 2, n, &hostInfo,
                                 batches - 2));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("getrf/getrs batched: info %d, %.3f %.3f\n", hostInfo, a.checksum(), b.checksum());

  // Cholesky of symmetric positive definite matrices with cuSOLVER.
  Batch s(0, true), rhs(4);
  cusolverDnHandle_t solver;
  CHECK_SOLVER(cusolverDnCreate(&solver));
  CHECK_SOLVER(cusolverDnSetStream(solver, stream));
  CHECK_SOLVER(cusolverDnSpotrfBatched(solver, CUBLAS_FILL_MODE_LOWER, n, s.device, n, info, batches));
  CHECK_SOLVER(cusolverDnSpotrsBatched(solver, CUBLAS_FILL_MODE_LOWER, n, 1, s.device, n, rhs.device, n, info, batches));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("potrf/potrs batched: %.3f %.3f\n", s.checksum(), rhs.checksum());

  CHECK_SOLVER(cusolverDnDestroy(solver));
  CHECK_BLAS(cublasDestroy(handle));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
