// cucatch-expect: clean
// Launch validity: kernels with many live pointers launched with 1024 threads per block. The
// gather kernel keeps nine pointers live across its loop: instrumented without a cap, ptxas
// gives it about 100 registers (sm_90), past the 64 a 1024-thread block allows, and the launch fails;
// cucatch-ptx measures that and caps it (.maxnreg 64). The conjugate-gradient step fits as it is.
#include "common.h"
#include "gather_kernel.h"
__global__ void cg_step(const int* rowPtr, const int* cols, const float* vals, const float* p, float* ap,
                        float* x, float* r, float* z, const float* diag, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = rowPtr[i]; k < rowPtr[i + 1]; ++k) sum += vals[k] * p[cols[k]];
  ap[i] = sum;
  x[i] += alpha * p[i];
  r[i] -= alpha * sum;
  z[i] = r[i] / diag[i];
}
int main() {
  const int n = 1 << 16, nnz = 3 * n - 2;
  static int rowPtr[n + 1], cols[nnz];
  static float vals[nnz], ones[n];
  int k = 0;
  for (int i = 0; i < n; ++i) {
    rowPtr[i] = k;
    for (int j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n) cols[k] = j, vals[k++] = j == i ? 4.0f : -1.0f;
    ones[i] = 1.0f;
  }
  rowPtr[n] = k;
  int *dRow, *dCol;
  float *dVal, *p, *ap, *x, *r, *z, *diag;
  CHECK(cudaMalloc(&dRow, (n + 1) * 4));
  CHECK(cudaMalloc(&dCol, nnz * 4));
  CHECK(cudaMalloc(&dVal, nnz * 4));
  for (float** v : {&p, &ap, &x, &r, &z, &diag}) {
    CHECK(cudaMalloc(v, n * 4));
    CHECK(cudaMemcpy(*v, ones, n * 4, cudaMemcpyHostToDevice));
  }
  CHECK(cudaMemcpy(dRow, rowPtr, (n + 1) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dCol, cols, nnz * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dVal, vals, nnz * 4, cudaMemcpyHostToDevice));
  for (const void* kernel : {(const void*)cg_step, (const void*)gather}) {
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, kernel));
    std::printf("accepts %d threads per block\n", attributes.maxThreadsPerBlock);
  }
  // The gather: index j in [0, n - 9) so that j + 8 stays inside the vectors.
  const int per = 4;
  static int indices[n * per];
  for (int i = 0; i < n * per; ++i) indices[i] = (i * 7919) % (n - 9);
  int* dIdx;
  float* out;
  CHECK(cudaMalloc(&dIdx, sizeof indices));
  CHECK(cudaMalloc(&out, n * 4));
  CHECK(cudaMemcpy(dIdx, indices, sizeof indices, cudaMemcpyHostToDevice));
  gather<<<n / 1024, 1024>>>(p, ap, x, r, z, diag, p, ap, dIdx, out, per);
  CHECK(cudaGetLastError());
  for (int it = 0; it < 3; ++it) {
    cg_step<<<n / 1024, 1024>>>(dRow, dCol, dVal, p, ap, x, r, z, diag, 0.5f, n);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  static float hz[n];
  CHECK(cudaMemcpy(hz, z, n * 4, cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : hz) s += v;
  std::printf("sum z %.3f\n", s);
  static float ho[n];
  CHECK(cudaMemcpy(ho, out, n * 4, cudaMemcpyDeviceToHost));
  double t = 0;
  for (float v : ho) t += v;
  std::printf("sum gather %.3f\n", t);
}
