// cucatch-expect: out-of-bounds read 992 kernel=matmul_tiles
// A tensor-core product over a 32x32 matrix launched with one tile row too many: the third
// row of tiles loads its A fragment (16 rows of 16 halfs, 32 apart: (15 * 32 + 16) * 2 = 992
// bytes) from rows 32..47, past the matrix. cucatch checks a wmma fragment's whole footprint
// from its layout and stride.
#include <cuda_fp16.h>
#include <mma.h>

#include "common.h"
using namespace nvcuda;
constexpr int N = 32;
__global__ void matmul_tiles(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a + blockIdx.y * 16 * N, N);  // cucatch-bug-line
  wmma::load_matrix_sync(fb, b + blockIdx.x * 16, N);
  wmma::mma_sync(fc, fa, fb, fc);
  if (blockIdx.y * 16 < N) wmma::store_matrix_sync(c + blockIdx.y * 16 * N + blockIdx.x * 16, fc, N, wmma::mem_row_major);
}
int main() {
  half *a, *b;
  float* c;
  CHECK(cudaMalloc(&a, N * N * sizeof(half)));
  CHECK(cudaMalloc(&b, N * N * sizeof(half)));
  CHECK(cudaMalloc(&c, N * N * sizeof(float)));
  CHECK(cudaMemset(a, 0, N * N * sizeof(half)));
  CHECK(cudaMemset(b, 0, N * N * sizeof(half)));
  matmul_tiles<<<dim3(N / 16, N / 16 + 1), 32>>>(a, b, c);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
