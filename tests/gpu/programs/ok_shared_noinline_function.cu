// cucatch-expect: clean
// Shared memory reached through device functions that are not inlined, correctly, up to the
// last byte of the block's shared memory: generic pointers into a static tile and into dynamic
// shared memory whose size (1000 bytes) is not a multiple of the allocation unit, 32-bit shared
// addresses made from them, and, through the same function, a pointer to global memory (which
// isspacep does not place in shared memory: it is checked against its allocation).
#include "common.h"
__device__ __noinline__ void put(float* p, int i, float v) { p[i] = v; }
__device__ __noinline__ float get_shared(const float* p, int i) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p + i));
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(a) : "memory");
  return v;
}
__global__ void mix(const float* in, float* out, int n) {
  __shared__ float tile[128];
  extern __shared__ float dyn[];
  int t = threadIdx.x;
  put(tile, t, in[t]);
  for (int i = t; i < n; i += blockDim.x) put(dyn, i, 2.0f * i);
  __syncthreads();
  float s = get_shared(tile, 127 - t) + get_shared(dyn, n - 1 - (t % n));
  put(out, t, s);
}
int main() {
  const int n = 250;  // 1000 bytes of dynamic shared memory
  float *in, *out, host[128];
  CHECK(cudaMalloc(&in, 128 * sizeof(float)));
  CHECK(cudaMalloc(&out, 128 * sizeof(float)));
  for (int i = 0; i < 128; ++i) host[i] = i;
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  mix<<<1, 128, n * sizeof(float)>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : host) sum += v;
  std::printf("sum %.1f\n", sum);
}
