// Atomics of every width and kind: 16/32/64-bit CAS, integer min/max/and/or/xor on 64 bits,
// half/bfloat16 adds, float2/float4 vector adds (sm_90), block/system scoped variants, and
// libcu++ atomic_ref with explicit memory orders and scopes, in global and shared memory.
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void widths(unsigned short* u16, int* i32, unsigned* u32, unsigned long long* u64, long long* s64,
                       float* f32, double* f64, __half* h, __half2* h2, __nv_bfloat16* b, __nv_bfloat162* b2,
                       float2* f2, float4* f4) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicCAS(u16, (unsigned short)t, (unsigned short)(t + 1));
  atomicCAS(u32, 0u, (unsigned)t);
  atomicCAS(u64, 0ull, (unsigned long long)t << 32);
  atomicExch(f32 + 1, (float)t);
  atomicExch(u64 + 1, 0x0123456789abcdefull);
  atomicMin(s64, (long long)-t);
  atomicMax(s64 + 1, (long long)t * 1000000007ll);
  atomicMin(u64 + 2, (unsigned long long)t);
  atomicMax(u64 + 3, (unsigned long long)t);
  atomicAnd(u64 + 4, ~(1ull << (t & 63)));
  atomicOr(u64 + 5, 1ull << (t & 63));
  atomicXor(u64 + 6, (unsigned long long)t * 0x9e3779b97f4a7c15ull);
  atomicInc(u32 + 1, 1000u);
  atomicDec(u32 + 2, 1000u);
  atomicSub(i32, 3);
  atomicAdd(h, __float2half(0.5f));
  atomicAdd(h2, __floats2half2_rn(1.f, -1.f));
  atomicAdd(b, __float2bfloat16(0.25f));
  atomicAdd(b2, __floats2bfloat162_rn(2.f, 4.f));
  atomicAdd_block(f64, 1.0);
  atomicAdd_system(f32 + 2, 1.f);
  atomicMax_system(i32 + 1, t);
  atomicCAS_block(i32 + 2, t, t + 1);
  atomicExch_system(u32 + 3, 7u);
  unsigned old = atomicOr_block(u32 + 4, 1u << (t & 31));
  i32[3 + (old & 3)] = t;
#if __CUDA_ARCH__ >= 900
  atomicAdd(f2, make_float2(1.f, 2.f));
  float4 prev = atomicAdd(f4, make_float4(1.f, 2.f, 3.f, 4.f));
  f32[3] = prev.w;
#endif
}

__global__ void scoped(int* flag, int* data, unsigned long long* ctr, float* fsum, double* dmax) {
  __shared__ int block_counter;
  __shared__ unsigned long long block_bits;
  cuda::atomic_ref<int, cuda::thread_scope_block> blk(block_counter);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_block> bits(block_bits);
  if (threadIdx.x == 0) { blk.store(0, cuda::memory_order_relaxed); bits.store(0, cuda::memory_order_relaxed); }
  __syncthreads();
  blk.fetch_add(1, cuda::memory_order_acq_rel);
  bits.fetch_or(1ull << (threadIdx.x & 63), cuda::memory_order_relaxed);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> dev(*ctr);
  unsigned long long ticket = dev.fetch_add(1, cuda::memory_order_seq_cst);
  cuda::atomic_ref<int, cuda::thread_scope_system> sys(*flag);
  int expected = 0;
  sys.compare_exchange_strong(expected, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed);
  cuda::atomic_ref<float, cuda::thread_scope_device> fs(*fsum);
  fs.fetch_add(1.5f, cuda::memory_order_release);
  cuda::atomic_ref<double, cuda::thread_scope_device> dm(*dmax);
  double cur = dm.load(cuda::memory_order_relaxed);
  while (cur < (double)ticket && !dm.compare_exchange_weak(cur, (double)ticket, cuda::memory_order_relaxed)) {}
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
  while (sys.load(cuda::memory_order_acquire) == 0) __nanosleep(64);
  __syncthreads();
  data[ticket % 1024] = blk.load(cuda::memory_order_relaxed) + (int)bits.exchange(0, cuda::memory_order_acq_rel);
}
