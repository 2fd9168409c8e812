// CUB device-wide algorithms (the kernels they instantiate are what matters here): a reduction
// and an exclusive scan, plus block-level radix sort / load / store / histogram in a kernel.
#include <cub/cub.cuh>

cudaError_t device_sum(void* tmp, size_t& bytes, const float* in, float* out, int n, cudaStream_t s) {
  return cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
}
cudaError_t device_scan(void* tmp, size_t& bytes, const int* in, int* out, int n, cudaStream_t s) {
  return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, s);
}

template <int THREADS, int ITEMS>
__global__ void block_sort_histogram(const unsigned* keys, unsigned* sorted, unsigned* hist) {
  using Load = cub::BlockLoad<unsigned, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<unsigned, THREADS, ITEMS>;
  using Store = cub::BlockStore<unsigned, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Hist = cub::BlockHistogram<unsigned char, THREADS, ITEMS, 256>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
    typename Store::TempStorage store;
    typename Hist::TempStorage hist;
  } tmp;
  __shared__ unsigned bins[256];
  unsigned k[ITEMS];
  int base = blockIdx.x * THREADS * ITEMS;
  Load(tmp.load).Load(keys + base, k);
  __syncthreads();
  Sort(tmp.sort).Sort(k);
  __syncthreads();
  Store(tmp.store).Store(sorted + base, k);
  __syncthreads();
  unsigned char low[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) low[i] = (unsigned char)(k[i] & 0xff);
  Hist(tmp.hist).Histogram(low, bins);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += THREADS) atomicAdd(&hist[b], bins[b]);
}
template __global__ void block_sort_histogram<128, 4>(const unsigned*, unsigned*, unsigned*);
