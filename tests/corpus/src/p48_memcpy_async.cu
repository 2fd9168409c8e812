// Asynchronous copies through libcu++ and cooperative groups: cuda::memcpy_async with a block
// barrier (cp.async + mbarrier on sm_80, bulk copies on sm_90), a multi-stage cuda::pipeline, and
// cg::memcpy_async / cg::wait.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

#pragma nv_diag_suppress static_var_with_dynamic_init
__global__ void barrier_copy(const float* in, float* out) {
  __shared__ alignas(16) float buf[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  size_t base = (size_t)blockIdx.x * 256;
  cuda::memcpy_async(block, buf, in + base, cuda::aligned_size_t<16>(sizeof(float) * 256), bar);
  bar.arrive_and_wait();
  out[base + threadIdx.x] = buf[255 - threadIdx.x] * 2.f;
}

template <int STAGES>
__global__ void pipelined_sum(const float4* in, float* out, int chunks) {
  __shared__ float4 stage[STAGES][128];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  float acc = 0.f;
  int fetch = 0;
  for (; fetch < STAGES && fetch < chunks; ++fetch) {
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[fetch % STAGES][threadIdx.x], &in[(size_t)fetch * 128 + threadIdx.x],
                       cuda::aligned_size_t<16>(sizeof(float4)), pipe);
    pipe.producer_commit();
  }
  for (int c = 0; c < chunks; ++c) {
    pipe.consumer_wait();
    float4 v = stage[c % STAGES][threadIdx.x];
    acc += v.x * v.y + v.z * v.w;
    pipe.consumer_release();
    if (fetch < chunks) {
      pipe.producer_acquire();
      cuda::memcpy_async(&stage[fetch % STAGES][threadIdx.x], &in[(size_t)fetch * 128 + threadIdx.x],
                         cuda::aligned_size_t<16>(sizeof(float4)), pipe);
      pipe.producer_commit();
      ++fetch;
    }
  }
  out[blockIdx.x * 128 + threadIdx.x] = acc;
}
template __global__ void pipelined_sum<2>(const float4*, float*, int);
template __global__ void pipelined_sum<4>(const float4*, float*, int);

__global__ void cg_copy(const int* in, int* out, int n) {
  extern __shared__ int dyn[];
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  cg::memcpy_async(block, dyn, in + (size_t)blockIdx.x * n, sizeof(int) * n);
  cg::wait(block);
  int s = 0;
  for (int i = tile.thread_rank(); i < n; i += tile.num_threads()) s += dyn[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
