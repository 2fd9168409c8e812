// cucatch-expect: clean
// cucatch-link: -rdc=true
// Relocatable code whose .visible and .weak device functions hand pointers to their local
// arrays around, correctly: a recursion that keeps a pointer to each level's array in global
// memory for the next level to read and write (the frame table finds the caller's frame from
// the private bodies), inline member functions (.weak: the unit's own copies) of local objects,
// one reached from the kernel's own frame, and a .visible function called through a function
// pointer (its forwarder, which passes no table). The output must be the plain build's.
#include "common.h"
__device__ int* level_array[64][8];
struct Ring {
  int v[6];
  int head;
  __device__ __noinline__ void init(int seed) {
    head = 0;
    for (int i = 0; i < 6; ++i) v[i] = seed * (i + 1);
  }
  __device__ __noinline__ void push(int x) {
    v[head] = x;
    head = (head + 1) % 6;
  }
  __device__ __noinline__ int total() const {
    int s = 0;
    for (int i = 0; i < 6; ++i) s += v[i];
    return s;
  }
};
__device__ __noinline__ void bump_parent(int depth) {
  // The caller's caller's array, read from memory: at its first and last element.
  int* parent = level_array[threadIdx.x][depth - 1];
  parent[0] += depth;
  parent[depth + 1] -= 1;
}
__device__ __noinline__ int descend(int depth, int seed) {
  int a[8];
  for (int i = 0; i < 8; ++i) a[i] = seed + i;
  level_array[threadIdx.x][depth] = a;
  if (depth > 0) bump_parent(depth);
  int below = depth < 6 ? descend(depth + 1, seed * 3 + 1) : 0;
  Ring r;
  r.init(a[depth & 7]);
  for (int i = 0; i < 9; ++i) r.push(a[i & 7] + i);
  return below + r.total() + a[0] + a[7];
}
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ int (*volatile pick)(int) = twice;
__global__ void local_pointers(int* out, int seed) {
  Ring mine;
  mine.init(seed + int(threadIdx.x));
  mine.push(descend(0, seed + int(threadIdx.x)));
  out[threadIdx.x] = mine.total() + pick(int(threadIdx.x));
}
int main() {
  int h[64];
  int* out;
  CHECK(cudaMalloc(&out, sizeof h));
  local_pointers<<<1, 64>>>(out, 11);
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  long long total = 0;
  for (int i = 0; i < 64; ++i) total += (long long)h[i] * (i + 1);
  std::printf("checksum %lld\n", total);
}
