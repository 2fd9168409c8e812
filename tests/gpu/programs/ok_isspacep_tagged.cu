// cucatch-expect: clean
// cucatch-expect-tagged
// A kernel asks which state space a pointer it read from memory is in (__isGlobal, __isShared,
// __isLocal: isspacep, in a function nvcc does not inline, so that it cannot fold them): a cudaMalloc'd pointer
// (tagged under cucatch), a __shared__ array's and a local array's generic addresses. The answers
// are the same in both builds.
#include "common.h"
__device__ __noinline__ int spaceOf(const void* p) { return __isGlobal(p) * 1 + __isShared(p) * 2 + __isLocal(p) * 4; }
__global__ void spaces(const void* const* table, int* out) {
  __shared__ int s[4];
  int l[4] = {1, 2, 3, 4};
  volatile int* lp = l;
  s[threadIdx.x] = lp[threadIdx.x];
  __syncthreads();
  const void* ptrs[3] = {table[0], s, l};
  volatile const void* const* vp = ptrs;
  for (int i = 0; i < 3; ++i) {
    out[i] = spaceOf(const_cast<const void*>(vp[i]));
  }
  out[3] = s[threadIdx.x] + lp[0];
}
int main() {
  int *g, *out, h[4];
  const void** table;
  CHECK(cudaMalloc(&g, 64));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMalloc(&table, sizeof(void*)));
  sayWhetherTagged(g);
  CHECK(cudaMemcpy(table, &g, sizeof(void*), cudaMemcpyHostToDevice));
  spaces<<<1, 1>>>(table, out);
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("global pointer %d, shared array %d, local array %d (%d)\n", h[0], h[1], h[2], h[3]);
}
