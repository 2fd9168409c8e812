// cucatch-expect: clean
// cucatch-link: -rdc=true
// cucatch-sources: lib/weak_instance.cu
// A .weak function (an explicit template instantiation in another unit) called from this unit,
// which only declares it: this unit's .weak forwarder store_twice<int>__cc_meta calls it by its
// name. A .weak definition gets no entry point: one of that name would meet the forwarder, and
// nvlink may keep the forwarder, which forwards to itself until the stack overflows (a review's
// reproducer).
#include "common.h"
template <class T>
__device__ void store_twice(T* p, T v);
__global__ void pairs(int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t < 32) store_twice<int>(s + 2 * t, t);
  __syncthreads();
  out[t] = s[t];
}
int main() {
  int h[64];
  int* out;
  CHECK(cudaMalloc(&out, sizeof h));
  pairs<<<1, 64>>>(out);
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  long long total = 0;
  for (int i = 0; i < 64; ++i) total += h[i] * (i + 1);
  std::printf("checksum %lld\n", total);
}
