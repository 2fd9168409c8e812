// cucatch-expect: clean
// cucatch-flags: -G
// A 64-bin byte histogram: per-thread counters in shared memory, bumped through pointers handed
// to helper functions, then a tree reduction of the blocks' partial histograms whose block
// barrier is cooperative groups' cg::sync. A debug build calls it as a function holding
// barrier.sync, in a loop after `if (t < stride)` around checked accesses. The checks' failing
// branches never come back, so ptxas finds no point after the `if` where the warp must
// reconverge; a warp that reached the called barrier split in two lost additions on the H100
// (every merged bin short) until cucatch put a bar.warp.sync before each call of such a
// function. The counts must be the plain build's.
#include <cooperative_groups.h>

#include <vector>

#include "common.h"
namespace cg = cooperative_groups;
constexpr unsigned kThreads = 64, kBins = 64, kMergeThreads = 256;
inline __device__ void bump(unsigned char* counters, unsigned bin) { counters[bin * kThreads]++; }
inline __device__ void bump_word(unsigned char* counters, unsigned w) {
  for (unsigned shift = 2; shift < 32; shift += 8) bump(counters, (w >> shift) & 63u);
}
__global__ void partial_histograms(unsigned* out, const uint4* in, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ unsigned char counts[kThreads * kBins];
  unsigned column = (threadIdx.x & 15u) << 2 | (threadIdx.x & 48u) >> 4;
  for (unsigned i = 0; i < kBins / 4; ++i) reinterpret_cast<unsigned*>(counts)[threadIdx.x + i * kThreads] = 0;
  cg::sync(block);
  for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x) {
    uint4 d = in[p];
    bump_word(counts + column, d.x);
    bump_word(counts + column, d.y);
    bump_word(counts + column, d.z);
    bump_word(counts + column, d.w);
  }
  cg::sync(block);
  unsigned s = 0;
  for (unsigned i = 0; i < kThreads; ++i) s += counts[threadIdx.x * kThreads + i];
  out[blockIdx.x * kBins + threadIdx.x] = s;
}
__global__ void merge(unsigned* histogram, const unsigned* parts, unsigned count) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ unsigned sums[kMergeThreads];
  unsigned s = 0;
  for (unsigned i = threadIdx.x; i < count; i += kMergeThreads) s += parts[blockIdx.x + i * kBins];
  sums[threadIdx.x] = s;
  for (unsigned stride = kMergeThreads / 2; stride > 0; stride >>= 1) {
    cg::sync(block);
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) histogram[blockIdx.x] = sums[0];
}
int main() {
  const unsigned bytes = 64u << 20, words = bytes / 4;
  const unsigned blocks = (bytes + kThreads * 252 - 1) / (kThreads * 252);  // at most 252 bytes a counter
  std::vector<unsigned> host(words);
  for (unsigned i = 0; i < words; ++i) host[i] = i * 2654435761u ^ (i >> 7) * 40503u;
  uint4* in;
  unsigned *parts, *histogram;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&parts, blocks * kBins * sizeof(unsigned)));
  CHECK(cudaMalloc(&histogram, kBins * sizeof(unsigned)));
  CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
  partial_histograms<<<blocks, kThreads>>>(parts, in, bytes / 16);
  merge<<<kBins, kMergeThreads>>>(histogram, parts, blocks);
  unsigned got[kBins];
  CHECK(cudaMemcpy(got, histogram, sizeof got, cudaMemcpyDeviceToHost));
  std::vector<unsigned> want(kBins, 0);
  const unsigned char* b = reinterpret_cast<const unsigned char*>(host.data());
  for (unsigned i = 0; i < bytes; ++i) want[b[i] >> 2]++;
  unsigned wrong = 0;
  for (unsigned j = 0; j < kBins; ++j) wrong += got[j] != want[j];
  std::printf("%u of %u bins wrong; bin 0: %u\n", wrong, kBins, got[0]);
}
