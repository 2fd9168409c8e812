// cucatch-expect: clean
// cucatch-expect-tagged
// Tensor-core fragments loaded from and stored to global memory (wmma::load_matrix_sync,
// store_matrix_sync): cucatch checks each fragment's footprint (from its layout and stride) and
// hands it the untagged address (a tagged one faults). A 32x32 by 32x32 product in
// 16x16x16 tiles, one warp per output tile; the checksum is the same in both builds.
#include <cuda_fp16.h>
#include <mma.h>
#include <vector>

#include "common.h"
using namespace nvcuda;
constexpr int N = 32;
__global__ void matmul(const half* a, const half* b, float* c) {
  int tileRow = blockIdx.y, tileCol = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k = 0; k < N; k += 16) {
    wmma::load_matrix_sync(fa, a + tileRow * 16 * N + k, N);
    wmma::load_matrix_sync(fb, b + k * N + tileCol * 16, N);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c + tileRow * 16 * N + tileCol * 16, fc, N, wmma::mem_row_major);
}
int main() {
  std::vector<half> ha(N * N), hb(N * N);
  for (int i = 0; i < N * N; ++i) {
    ha[i] = __float2half(float(i % 5));
    hb[i] = __float2half(float(i % 3));
  }
  half *a, *b;
  float* c;
  CHECK(cudaMalloc(&a, N * N * sizeof(half)));
  CHECK(cudaMalloc(&b, N * N * sizeof(half)));
  CHECK(cudaMalloc(&c, N * N * sizeof(float)));
  sayWhetherTagged(c);
  CHECK(cudaMemcpy(a, ha.data(), N * N * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), N * N * sizeof(half), cudaMemcpyHostToDevice));
  matmul<<<dim3(N / 16, N / 16), 32>>>(a, b, c);
  std::vector<float> hc(N * N);
  CHECK(cudaMemcpy(hc.data(), c, N * N * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < N * N; ++i) sum += hc[i] * (1 + i % 7);
  std::printf("checksum %.1f\n", sum);
}
