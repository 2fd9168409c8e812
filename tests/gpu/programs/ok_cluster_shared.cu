// cucatch-expect: clean
// Distributed shared memory used correctly in clusters of 2 and 4 blocks: the neighbours' tiles
// read through cooperative_groups' map_shared_rank (generic mapa) up to their last element, and
// through mapa.shared::cluster / ld.shared::cluster (32-bit cluster addresses), then a
// distributed histogram with atomics into the block that owns each bin.
#include <cooperative_groups.h>
#include "common.h"
namespace cg = cooperative_groups;
template <int Blocks>
__global__ void __cluster_dims__(Blocks, 1, 1) neighbours(const float* in, float* out) {
  __shared__ float tile[128];
  __shared__ unsigned bins[32];
  cg::cluster_group cluster = cg::this_cluster();
  int t = threadIdx.x;
  unsigned rank = cluster.block_rank();
  tile[t] = in[blockIdx.x * 128 + t];
  if (t < 32) bins[t] = 0;
  cluster.sync();
  const float* next = cluster.map_shared_rank(tile, (rank + 1) % Blocks);
  float a = next[127 - t];
  unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(&tile[t]));
  unsigned remote;
  float b;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"((rank + Blocks - 1) % Blocks));
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(b) : "r"(remote) : "memory");
  unsigned bin = static_cast<unsigned>(t * 7 + rank) % (32 * Blocks);
  unsigned* owner = cluster.map_shared_rank(bins, bin / 32);
  atomicAdd(&owner[bin % 32], 1u);
  cluster.sync();
  out[blockIdx.x * 128 + t] = a + 2 * b + (t < 32 ? bins[t] : 0);
}
int main() {
  float *in, *out, host[512];
  CHECK(cudaMalloc(&in, sizeof host));
  CHECK(cudaMalloc(&out, sizeof host));
  for (int i = 0; i < 512; ++i) host[i] = i % 13;
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  neighbours<2><<<4, 128>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  double s2 = 0;
  for (float v : host) s2 += v;
  neighbours<4><<<4, 128>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  double s4 = 0;
  for (float v : host) s4 += v;
  std::printf("%.1f %.1f\n", s2, s4);
}
