#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// __cluster_dims__ exists from sm_90 on; older targets build the kernel without it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CLUSTER_DIMS
#else
#define CLUSTER_DIMS __cluster_dims__(2, 1, 1)
#endif
__global__ void CLUSTER_DIMS cluster_kernel(int* out) {
#if __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int smem[32];
  smem[threadIdx.x % 32] = threadIdx.x;
  cluster.sync();
  int* remote = cluster.map_shared_rank(smem, (cluster.block_rank() + 1) % cluster.num_blocks());
  out[blockIdx.x * blockDim.x + threadIdx.x] = remote[threadIdx.x % 32];
  cluster.sync();
#endif
}
