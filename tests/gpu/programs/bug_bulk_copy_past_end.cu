// cucatch-expect: out-of-bounds read 1024 kernel=mirror
// A bulk copy (cuda::memcpy_async of a 16-byte-aligned size with a block barrier: cp.async.bulk
// on sm_90) launched with one block too many: the last block copies 256 ints from past the end
// of the source. cucatch checks a bulk copy's global side for its byte count, a run-time value.
#include <cooperative_groups.h>
#include <cuda/barrier>

#include "common.h"
__global__ void mirror(const int* src, int* out) {
  __shared__ alignas(16) int buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, src + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(buf)), bar);  // cucatch-bug-line
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = buf[threadIdx.x];
}
int main() {
  const int blocks = 4;
  int *src, *out;
  CHECK(cudaMalloc(&src, blocks * 256 * sizeof(int)));
  CHECK(cudaMalloc(&out, (blocks + 1) * 256 * sizeof(int)));
  CHECK(cudaMemset(src, 0, blocks * 256 * sizeof(int)));
  mirror<<<blocks + 1, 256>>>(src, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
