#include <cuda/atomic>
__global__ void atomics(float* f, double* d, int* i, unsigned long long* u, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  atomicAdd(f, 1.0f);
  atomicAdd(d, 2.0);
  atomicAdd(i + 1, t);
  atomicAdd(u, 3ull);
  atomicCAS(i + 2, 0, t);
  atomicExch(i + 3, t);
  atomicMin(i + 4, t);
  atomicMax(i + 5, t);
  atomicAnd(i + 6, t);
  atomicOr(i + 7, t);
  atomicXor(i + 8, t);
  atomicInc((unsigned*)i + 9, 100u);
  atomicAdd_block(i + 10, 1);
  atomicAdd_system(i + 11, 1);
  cuda::atomic_ref<int, cuda::thread_scope_device> ref(i[12]);
  ref.fetch_add(1, cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_system> sys(i[13]);
  sys.store(t, cuda::memory_order_release);
}
