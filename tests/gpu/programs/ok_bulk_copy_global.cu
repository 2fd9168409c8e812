// cucatch-expect: clean
// cucatch-expect-tagged
// A bulk copy from global memory into shared memory (cuda::memcpy_async of a 16-byte-aligned
// size with a block barrier compiles to cp.async.bulk on sm_90, as CUB's merge does since CCCL
// 3.1): cucatch checks it for its byte count, a run-time value, and hands it the untagged
// source address (a tagged one faults). The output is the same in both builds.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <vector>

#include "common.h"
__global__ void mirror(const int* src, int* out) {
  __shared__ alignas(16) int buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, src + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(buf)), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = buf[threadIdx.x] * 2 + buf[255 - threadIdx.x];
}
int main() {
  const int blocks = 8, n = blocks * 256;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i * 7 % 1000;
  int *src, *out;
  CHECK(cudaMalloc(&src, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  sayWhetherTagged(src);
  CHECK(cudaMemcpy(src, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  mirror<<<blocks, 256>>>(src, out);
  CHECK(cudaMemcpy(h.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += long(h[i]) * (1 + i % 5);
  std::printf("checksum %ld first %d last %d\n", sum, h[0], h[n - 1]);
}
