// cucatch-expect: clean
// cucatch-link: -lcublas
// cucatch-env: CUCATCH_TAGS=0
// cucatch-also: with tags on, fails with the CUCATCH_TAGS=0 hint
// A batched cuBLAS GEMM reads its matrices' addresses from a pointer array in device memory,
// which the program filled with pointers from cudaMalloc. cuBLAS's kernels are not
// instrumented and only launch arguments are untagged, so with tags on they dereference tagged
// pointers and fault: the known limit of tags (docs/runtime.md). The runtime must then say
// what to do (CUCATCH_TAGS=0), and with CUCATCH_TAGS=0 the program runs clean.
#include <cublas_v2.h>
#include <vector>
#include "common.h"

#define CHECK_BLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); std::exit(2); } } while (0)

int main() {
  const int n = 32, batches = 4;
  std::vector<float*> a(batches), b(batches), c(batches);
  std::vector<float> h(n * n);
  for (int i = 0; i < batches; ++i) {
    CHECK(cudaMalloc(&a[i], n * n * sizeof(float)));
    CHECK(cudaMalloc(&b[i], n * n * sizeof(float)));
    CHECK(cudaMalloc(&c[i], n * n * sizeof(float)));
    for (int j = 0; j < n * n; ++j) h[j] = float((j + i) % 5) - 2.0f;
    CHECK(cudaMemcpy(a[i], h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b[i], h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  float **da, **db, **dc;
  CHECK(cudaMalloc(&da, batches * sizeof(float*)));
  CHECK(cudaMalloc(&db, batches * sizeof(float*)));
  CHECK(cudaMalloc(&dc, batches * sizeof(float*)));
  CHECK(cudaMemcpy(da, a.data(), batches * sizeof(float*), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), batches * sizeof(float*), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), batches * sizeof(float*), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CHECK_BLAS(cublasCreate(&handle));
  const float one = 1.0f, zero = 0.0f;
  CHECK_BLAS(cublasSgemmBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n, batches));
  CHECK(cudaDeviceSynchronize());
  double sum = 0;
  for (int i = 0; i < batches; ++i) {
    CHECK(cudaMemcpy(h.data(), c[i], h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int j = 0; j < n * n; ++j) sum += h[j] * (j % 7 + 1) * (i + 1);
  }
  std::printf("checksum %.1f\n", sum);
  CHECK_BLAS(cublasDestroy(handle));
  for (int i = 0; i < batches; ++i) {
    CHECK(cudaFree(a[i]));
    CHECK(cudaFree(b[i]));
    CHECK(cudaFree(c[i]));
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return 0;
}
