// Tensor-core variants beyond f16 wmma: int8 wmma (sm_75), bf16/tf32/f64 wmma (sm_80), inline
// mma.sync in several shapes and types, ldmatrix (plain and .trans), movmatrix, stmatrix (sm_90).
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

__global__ void wmma_s8(const signed char* a, const signed char* b, int* c, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + kk, k);
    wmma::load_matrix_sync(fb, b + kk, k);
    wmma::mma_sync(fc, fa, fb, fc, true);
  }
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_col_major);
}

__global__ void wmma_sm80(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* x, const double* p,
                          float* c, double* d) {
#if __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 1.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
  wmma::load_matrix_sync(ta, x, 8);
  wmma::load_matrix_sync(tb, x + 128, 8);
  for (int i = 0; i < ta.num_elements; ++i) ta.x[i] = wmma::__float_to_tf32(ta.x[i]);
  wmma::fill_fragment(tc, 0.0f);
  wmma::mma_sync(tc, ta, tb, tc);
  for (int i = 0; i < tc.num_elements; ++i) fc.x[i] += tc.x[i];
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> db;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
  wmma::load_matrix_sync(da, p, 4);
  wmma::load_matrix_sync(db, p + 32, 4);
  wmma::fill_fragment(dc, 0.0);
  wmma::mma_sync(dc, da, db, dc);
  wmma::store_matrix_sync(d, dc, 8, wmma::mem_row_major);
#endif
}

__global__ void mma_inline(const unsigned* frag, float* c, int* ci, double* cd, unsigned* moved) {
  __shared__ alignas(16) unsigned short tile[32 * 8 * 4];
  int lane = threadIdx.x & 31;
  for (int i = lane; i < 32 * 8 * 4; i += 32) tile[i] = (unsigned short)(frag[i & 255] ^ i);
  __syncwarp();
  unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[lane * 8]);
  unsigned a0, a1, a2, a3, b0, b1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(addr));
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  // m16n8k8 with f16 inputs exists from sm_75 on.
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(b0));
  int i0 = 0, i1 = 0;
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+r"(i0), "+r"(i1) : "r"(a2), "r"(b1));
  unsigned m;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(a3));
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  int i2 = 0, i3 = 0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  double e0 = cd[lane], e1 = cd[lane + 32];
  double x = __longlong_as_double(((long long)a0 << 32) | a1), y = __longlong_as_double(((long long)b0 << 32) | b1);
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(e0), "+d"(e1) : "d"(x), "d"(y));
  cd[lane] = e0 + e1;
  ci[lane + 64] = i2 ^ i3;
#endif
#if __CUDA_ARCH__ >= 900
  __syncwarp();
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
  __syncwarp();
  m ^= tile[lane];
#endif
  c[lane * 4] = d0; c[lane * 4 + 1] = d1; c[lane * 4 + 2] = d2; c[lane * 4 + 3] = d3;
  ci[lane] = i0 + i1;
  moved[lane] = m;
}
