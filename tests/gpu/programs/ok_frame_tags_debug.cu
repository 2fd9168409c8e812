// cucatch-expect: clean
// cucatch-flags: -G
// Correct code through pointers into frames that carry frame tags (a debug build: every
// function keeps the frame table, and its pointers into its own frame carry its call's serial).
// Pointers into one frame compare and subtract as before, also after a trip through memory and
// into callees; a callee returns a pointer into its caller's array; printf prints a local
// string of the function's own and one of its caller's (%s reads the address); a pointer's
// alignment is tested through its integer value.
#include "common.h"
__device__ int* parked[64];
__device__ __noinline__ int fill(int* begin, int* end, int n) {
  int count = 0;
  for (int* p = begin; p != end; ++p) {
    *p = n + count;
    ++count;
  }
  return count + int(end - begin);
}
__device__ __noinline__ int* find(int* a, int len, int value) {
  for (int i = 0; i < len; ++i)
    if (a[i] == value) return a + i;
  return a + len;
}
__device__ __noinline__ void show(const char* name, int value) {
  if (threadIdx.x == 3) printf("show %s %d\n", name, value);
}
__device__ __noinline__ int walk(int n) {
  int a[8];
  int* ptrs[4];
  char name[8];
  for (int i = 0; i < 7; ++i) name[i] = char('a' + (n + i) % 26);
  name[7] = 0;
  int filled = fill(a, a + 8, n);
  for (int i = 0; i < 4; ++i) ptrs[i] = a + 2 * i;
  parked[threadIdx.x] = a + 5;
  int same = 0;
  for (int i = 0; i < 4; ++i) same += ptrs[i] == a + 2 * i;
  int* found = find(a, 8, n + 6);
  int at = int(found - a);
  bool aligned = (reinterpret_cast<unsigned long long>(found) % alignof(int)) == 0;
  int* back = parked[threadIdx.x];
  int* end = find(a, 8, -1);
  if (threadIdx.x == 3) printf("walk %s %d %d %d %d %d %d\n", name, filled, same, at, aligned, back == a + 5, end == a + 8);
  show(name, *back);
  return filled + same + at + *back;
}
__global__ void frames(int* out, int n) { out[threadIdx.x] = walk(n + int(threadIdx.x)); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  frames<<<1, 32>>>(out, 1);
  int host[32];
  CHECK(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost));
  long sum = 0;
  for (int v : host) sum += v;
  std::printf("sum %ld\n", sum);
}
