// Thread-block clusters (sm_90): compile-time cluster shapes, a launch bound with a maximum
// cluster size (.maxclusterrank), a required block size (__block_size__, accepted for sm_90 only:
// .reqntid), and a histogram in distributed shared memory with split arrive/wait cluster barriers.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CLUSTER_2x2
#define CLUSTER_4
#else
#define CLUSTER_2x2 __cluster_dims__(2, 2, 1)
#define CLUSTER_4 __cluster_dims__(4)
#endif

__global__ void CLUSTER_4 __launch_bounds__(256) dsmem_histogram(const unsigned char* in, unsigned* out, int n) {
  __shared__ unsigned bins[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) bins[b] = 0;
#if __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  unsigned ranks = cluster.num_blocks();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i];
    unsigned owner = (v / 64) % ranks;
    unsigned* remote = cluster.map_shared_rank(bins, owner);
    atomicAdd(remote + (v % 64), 1u);
  }
  cluster.sync();
  unsigned rank = cluster.block_rank();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&out[rank * 64 + b], bins[b]);
  dim3 idx = cluster.block_index();
  if (threadIdx.x == 0) out[1024 + blockIdx.x] = idx.x + cluster.dim_blocks().x * 100;
#else
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&bins[in[i] % 64], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&out[b], bins[b]);
#endif
}

__global__ void CLUSTER_2x2 split_barrier(float* data) {
  __shared__ float mine[128];
  mine[threadIdx.x] = data[blockIdx.x * 128 + threadIdx.x];
#if __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster();
  auto token = cluster.barrier_arrive();
  float local = mine[threadIdx.x] * 2.f;   // independent work between arrive and wait
  cluster.barrier_wait(cuda::std::move(token));
  float* peer = cluster.map_shared_rank(mine, (cluster.block_rank() + 1) % cluster.num_blocks());
  local += peer[127 - threadIdx.x];
  unsigned ctarank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ctarank));
  cluster.sync();
  data[blockIdx.x * 128 + threadIdx.x] = local + (float)ctarank;
#else
  __syncthreads();
  data[blockIdx.x * 128 + threadIdx.x] = mine[127 - threadIdx.x] * 2.f;
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define MAX_CLUSTER(t, b, c) __launch_bounds__(t, b)
#else
#define MAX_CLUSTER(t, b, c) __launch_bounds__(t, b, c)
#endif
__global__ void MAX_CLUSTER(128, 2, 8) max_cluster_rank(int* d) { d[blockIdx.x * 128 + threadIdx.x] ^= 0x33; }

#if defined(__block_size__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
#define BLOCK_128 __block_size__((128, 1, 1))
#else
#define BLOCK_128 __launch_bounds__(128)
#endif
__global__ void BLOCK_128 required_block(float* d) { d[blockIdx.x * 128 + threadIdx.x] *= 0.5f; }
