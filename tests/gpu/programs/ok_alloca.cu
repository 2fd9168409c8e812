// cucatch-expect: clean
// Blocks alloca made, used correctly, stay silent with output identical to a plain build: one
// sized by the kernel's argument and by the thread, filled and read to its last element; one
// handed to a device function that is not inlined (a generic pointer there); and one made in a
// loop (a new block each iteration, checked by nothing: cucatch counts it unchecked).
#include "common.h"
__device__ __noinline__ int weigh(const int* v, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * (i + 1);
  return s;
}
__global__ void blocks(const int* in, int n, int* out) {
  int count = n + (threadIdx.x & 3);
  int* own = static_cast<int*>(alloca(count * sizeof(int)));
  for (int i = 0; i < count; ++i) own[i] = in[(threadIdx.x + i) & 63];
  int s = own[count - 1] + weigh(own, count);
  for (int round = 1; round < n; ++round) {
    int* step = static_cast<int*>(alloca(round * sizeof(int)));
    for (int i = 0; i < round; ++i) step[i] = own[(i * 3 + round) % count] + round;
    s += step[(s & 0x7fffffff) % round];
  }
  out[threadIdx.x] = s;
}
int main() {
  int host[64];
  for (int i = 0; i < 64; ++i) host[i] = (i * 37) % 11;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof host));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  blocks<<<2, 32>>>(in, 5, out);
  int result[64];
  CHECK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  long total = 0;
  for (int i = 0; i < 32; ++i) total = total * 3 + result[i];
  std::printf("checksum %ld\n", total);
}
