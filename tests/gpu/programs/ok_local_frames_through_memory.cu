// cucatch-expect: clean
// Correct code the frame table must leave alone: callees reading and writing their callers'
// local arrays through pointers kept in global memory, recursion deeper than the table holds
// (each level's array reached through memory by the level below), a function called twice at
// one depth, a callee whose own frame lands where an earlier callee's was, and a pointer one
// past the end of a caller's array.
#include "common.h"
__device__ int* level_array[64][16];
__device__ __noinline__ int sum_through_memory(int level) {
  const int* p = level_array[threadIdx.x][level];
  int s = 0;
  for (int i = 0; i < 8; ++i) s += p[i];
  return s;
}
__device__ __noinline__ int descend(int level, int depth) {
  int mine[8];
  for (int i = 0; i < 8; ++i) mine[i] = level * 10 + i;
  level_array[threadIdx.x][level] = mine;
  int below = level + 1 < depth ? descend(level + 1, depth) : 0;
  // The array of this level and the one above (live: its function is still running).
  int above = level > 0 ? sum_through_memory(level - 1) : 0;
  return below + sum_through_memory(level) + above + mine[level & 7];
}
__device__ __noinline__ void write_through_memory(int n) {
  int* p = level_array[threadIdx.x][15];
  for (int i = 0; i < 8; ++i) p[i] += n;
}
__device__ __noinline__ int twice(int n) {
  int mine[8];
  for (int i = 0; i < 8; ++i) mine[i] = n;
  level_array[threadIdx.x][15] = mine;
  write_through_memory(n);
  write_through_memory(n + 1);
  return mine[0] + mine[7];
}
// A pointer one past the end of a caller's array, kept in memory: correct, and walked back.
struct Span {
  int* begin;
  int* end;
};
__device__ Span spans[64];
__device__ __noinline__ int sum_backwards() {
  const Span& s = spans[threadIdx.x];
  int t = 0;
  for (int* e = s.end; e != s.begin;) t += *--e;
  return t;
}
__device__ __noinline__ int span_owner(int n) {
  int a[16];
  for (int i = 0; i < 16; ++i) a[i] = n + i;
  spans[threadIdx.x] = Span{a, a + 16};
  return sum_backwards();
}
__global__ void frames_kernel(int* out, int depth) {
  int t = threadIdx.x;
  out[t] = descend(0, depth) + twice(t) + twice(t + 1) + span_owner(t);
}
int main() {
  // Recursion needs stack past the default: as a program that recurses asks for it. (Instrumented,
  // each level takes more: the checks' registers, and the table's address kept across calls.)
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 16384));
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  int host[64];
  long total = 0;
  for (int depth : {3, 8, 12}) {
    frames_kernel<<<2, 64>>>(out, depth);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    for (int v : host) total += v;
  }
  std::printf("total %ld\n", total);
}
