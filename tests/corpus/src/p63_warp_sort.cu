// corpus-nvrtc: 124 118
// Warp-level bitonic sort in registers (shfl.sync.bfly), templated on 32- and 64-bit keys, with
// payloads; warp votes/matches on sorted keys; sm_80 redux min/max guarded by __CUDA_ARCH__.
template <typename K>
__device__ __forceinline__ K shfl_xor_any(K v, int mask) {
  if constexpr (sizeof(K) == 8) {
    unsigned long long u = *reinterpret_cast<unsigned long long*>(&v);
    unsigned lo = __shfl_xor_sync(0xffffffffu, (unsigned)u, mask), hi = __shfl_xor_sync(0xffffffffu, (unsigned)(u >> 32), mask);
    u = ((unsigned long long)hi << 32) | lo;
    return *reinterpret_cast<K*>(&u);
  } else {
    return __shfl_xor_sync(0xffffffffu, v, mask);
  }
}

template <typename K, typename V>
__device__ void warp_bitonic(K& key, V& val) {
  int lane = threadIdx.x & 31;
#pragma unroll
  for (int size = 2; size <= 32; size <<= 1) {
#pragma unroll
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      K ok = shfl_xor_any(key, stride);
      V ov = __shfl_xor_sync(0xffffffffu, val, stride);
      bool up = ((lane & size) == 0);
      bool lower = (lane & stride) == 0;
      bool take = lower == up ? ok < key : ok > key;
      if (take) { key = ok; val = ov; }
    }
  }
}

template <typename K>
__global__ void sort_warps(K* keys, int* vals, unsigned* info) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  K k = keys[i];
  int v = vals[i];
  warp_bitonic(k, v);
  keys[i] = k;
  vals[i] = v;
  unsigned same = __match_any_sync(0xffffffffu, k);
  int pred;
  unsigned all = __match_all_sync(0xffffffffu, k, &pred);
  unsigned leaders = __ballot_sync(0xffffffffu, (same & ((1u << (threadIdx.x & 31)) - 1)) == 0);
  unsigned r = __popc(leaders) + all + pred + __any_sync(0xffffffffu, v < 0) + __all_sync(0xffffffffu, v >= 0) + __uni_sync(0xffffffffu, v);
#if __CUDA_ARCH__ >= 800
  r += __reduce_min_sync(0xffffffffu, (unsigned)v) + __reduce_max_sync(0xffffffffu, v) + __reduce_or_sync(0xffffffffu, (unsigned)v) +
       __reduce_xor_sync(0xffffffffu, r) + __reduce_and_sync(0xffffffffu, leaders);
#endif
  info[i] = r;
}
template __global__ void sort_warps<unsigned>(unsigned*, int*, unsigned*);
template __global__ void sort_warps<float>(float*, int*, unsigned*);
template __global__ void sort_warps<unsigned long long>(unsigned long long*, int*, unsigned*);
template __global__ void sort_warps<double>(double*, int*, unsigned*);
