// Cooperative groups beyond a single tile: a grid-wide barrier (this_grid().sync(), which nvcc 13
// compiles without -rdc), meta groups, coalesced/labeled/binary partitions and tile scans.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// Scales a vector to unit length in one launch: per-block partial sums, grid barrier, scale.
__global__ void grid_normalize(float* data, float* partial, unsigned long long n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[32];
  __shared__ float scale;
  float local = 0.f;
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.num_threads()) local += data[i] * data[i];
  float wsum = cg::reduce(warp, local, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = wsum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    float v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) partial[grid.block_rank()] = v;
  }
  grid.sync();
  if (block.thread_rank() == 0) {
    float s = 0.f;
    for (unsigned long long b = 0; b < grid.num_blocks(); ++b) s += partial[b];
    scale = rsqrtf(s + 1e-12f);
  }
  block.sync();
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.num_threads()) data[i] *= scale;
}

// Jacobi sweeps with the grid barrier between iterations (ping-pong buffers).
__global__ void grid_jacobi(float* a, float* b, int n, int iters) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iters; ++it) {
    const float* src = (it & 1) ? b : a;
    float* dst = (it & 1) ? a : b;
    for (int i = grid.thread_rank(); i < n; i += grid.num_threads()) {
      float l = i > 0 ? src[i - 1] : src[i];
      float r = i + 1 < n ? src[i + 1] : src[i];
      dst[i] = 0.5f * src[i] + 0.25f * (l + r);
    }
    grid.sync();
  }
}

__global__ void partitions(const int* keys, int* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile8 = cg::tiled_partition<8>(block);
  auto tile4 = cg::tiled_partition<4>(tile8);
  auto warp = cg::tiled_partition<32>(block);
  int k = keys[block.thread_rank()];
  int r = 0;
  if (k & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    r += active.num_threads() + active.shfl(k, 0) + active.thread_rank();
  }
  cg::coalesced_group same = cg::labeled_partition(warp, k & 3);
  r += same.thread_rank() * 3;
  cg::coalesced_group side = cg::binary_partition(warp, k > 100);
  r += side.num_threads();
  r += cg::inclusive_scan(tile8, k);
  r += cg::exclusive_scan(tile4, k, cg::bit_xor<int>());
  r += tile4.any(k == 0) + tile4.all(k > 0) + (int)tile8.ballot(k < 0);
  r += (int)tile8.match_any(k);
  r += cg::reduce(tile4, k, cg::greater<int>());
  r += warp.shfl_xor(r, 1) + tile8.shfl_up(r, 2) + tile8.shfl_down(r, 1);
  tile8.sync();
  out[block.thread_rank()] = r;
}
