// cucatch-expect: out-of-bounds read 4 kernel=exchange_halo object=tile space=shared
// Distributed shared memory: each block of a 2-block cluster reads its neighbour's tile through
// cooperative_groups' map_shared_rank (a generic mapa), and thread 63 reads one element past the
// neighbour's 64-element tile. The tile's bounds move to the other block with the address.
#include <cooperative_groups.h>
#include "common.h"
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) exchange_halo(const float* in, float* out, int extra) {
  __shared__ float tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 64 + t];
  cluster.sync();
  float* remote = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  float v = remote[t + (t == 63 ? extra : 0)];  // cucatch-bug-line
  out[blockIdx.x * 64 + t] = tile[t] + v;
  cluster.sync();
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 128 * sizeof(float)));
  CHECK(cudaMalloc(&out, 128 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 128 * sizeof(float)));
  exchange_halo<<<2, 64>>>(in, out, 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
