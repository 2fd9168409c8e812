// cucatch-expect: clean
// cucatch-link: -lcublas
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// A bf16 GEMM large enough for cuBLASLt's Hopper kernels (TMA descriptors made from the
// program's buffers, launched through driver entry points cuBLASLt resolves with dlsym), on
// tagged pointers, plus a strided-batched one on interior pointers. Inputs are small integers,
// so every product and sum is exact in float and the result is checked against the host.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <vector>
#include "common.h"

#define CHECK_BLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); std::exit(2); } } while (0)

static float value(int i, int mod) { return float(i % mod) - float(mod / 2); }

int main() {
  const int m = 2048, n = 1024, k = 512;  // column-major: C (m x n) = A (m x k) * B (k x n)
  std::vector<__nv_bfloat16> a(size_t(m) * k), b(size_t(k) * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = __float2bfloat16(value(int(i * 7 % 1009), 7));
  for (size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(value(int(i * 5 % 1013), 5));
  __nv_bfloat16 *A, *B;
  float* C;
  CHECK(cudaMalloc(&A, a.size() * sizeof(a[0])));
  CHECK(cudaMalloc(&B, b.size() * sizeof(b[0])));
  CHECK(cudaMalloc(&C, size_t(m) * n * sizeof(float)));
  sayWhetherTagged(B);
  CHECK(cudaMemcpy(A, a.data(), a.size() * sizeof(a[0]), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, b.data(), b.size() * sizeof(b[0]), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CHECK_BLAS(cublasCreate(&handle));
  const float one = 1.0f, zero = 0.0f;
  CHECK_BLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, CUDA_R_16BF, m, B, CUDA_R_16BF, k,
                          &zero, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  // Three 256 x 256 x 256 products on interior pointers: batch i reads rows 256 (i + 1).. of
  // A and B and writes columns 256 (i + 1).. of C.
  const int s = 256, batches = 3;
  CHECK_BLAS(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &one, A + s, CUDA_R_16BF, m, s,
                                        B + s, CUDA_R_16BF, k, s, &zero, C + size_t(m) * s, CUDA_R_32F, m,
                                        (long long)s * m, batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  std::vector<float> c(size_t(m) * n);
  CHECK(cudaMemcpy(c.data(), C, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaDeviceSynchronize());

  auto at = [](const std::vector<__nv_bfloat16>& v, size_t i) { return __bfloat162float(v[i]); };
  size_t wrong = 0, checked = 0;
  double sum = 0;
  for (size_t i = 0; i < c.size(); ++i) sum += c[i] * double(i % 11 + 1);
  // Samples of the first product's columns 0..s-1 (the batches overwrote the top of columns
  // s..4s-1), and of each batch.
  for (int col = 0; col < s; ++col)
    for (int row = col % 97; row < m; row += 97) {
      double ref = 0;
      for (int p = 0; p < k; ++p) ref += at(a, size_t(p) * m + row) * at(b, size_t(col) * k + p);
      wrong += c[size_t(col) * m + row] != float(ref);
      ++checked;
    }
  for (int bi = 0; bi < batches; ++bi)
    for (int col = 0; col < s; col += 13)
      for (int row = (col + bi) % 17; row < s; row += 17) {
        double ref = 0;
        for (int p = 0; p < s; ++p)
          ref += at(a, size_t(s) + size_t(bi) * s + size_t(p) * m + row) * at(b, size_t(s) + size_t(bi) * s + size_t(col) * k + p);
        wrong += c[size_t(m) * s + size_t(bi) * s * m + size_t(col) * m + row] != float(ref);
        ++checked;
      }
  std::printf("checksum %.1f, %zu of %zu sampled elements wrong\n", sum, wrong, checked);
  CHECK_BLAS(cublasDestroy(handle));
  CHECK(cudaFree(A));
  CHECK(cudaFree(B));
  CHECK(cudaFree(C));
  return wrong ? 3 : 0;
}
