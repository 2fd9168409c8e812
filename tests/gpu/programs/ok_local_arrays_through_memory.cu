// cucatch-expect: clean
// cucatch-expect-checked: arrays_through_memory
// Correct code that reaches its caller's two local arrays through pointers kept in global memory
// (no bounds come with them: the frame table finds the frame, and the unit's table of frame arrays
// the array): forward from one array's start, backwards from the other's end (an address that is
// also where the next array starts: both are the pointer's bounds), from the middle of an array
// in both directions, and the same again from a recursion's deeper frames. A check against the
// wrong one of two adjacent arrays would report one of these.
// The recursion goes as deep as the default stack limit (1 KiB) allows plain (3 levels of a
// 312-byte frame, 1016 bytes with the callee's, ptxas 13.0 -O3 sm_90), then as deep as a limit of
// 2 KiB the program sets allows: instrumented, its frames need more (the frame table), which the
// runtime gives it by raising the limit it reports unchanged (instrument/StackReserve.h).
#include "common.h"
__device__ int* starts[64];
__device__ int* ends[64];
__device__ int* middles[64];
__device__ __noinline__ int walk(int n) {
  const int t = int(threadIdx.x);
  int* p = starts[t];
  int* e = ends[t];
  int* m = middles[t];
  int s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  for (int i = 1; i <= n; ++i) s += e[-i] * 3;
  for (int i = -8; i < 8; ++i) s += m[i] * 5;
  e[-1] = s & 1023;
  p[n - 1] = s & 511;
  return s;
}
__device__ __noinline__ int owner(int n, int depth) {
  const int t = int(threadIdx.x);
  int a[16];
  int b[16];
  for (int i = 0; i < 16; ++i) {
    a[i] = i * t % 7;
    b[i] = (i + t) % 5;
  }
  int s = 0;
  if (depth > 0) s += owner(n, depth - 1);
  starts[t] = b;
  ends[t] = a + 16;
  middles[t] = (t & 1) ? a + 8 : b + 8;
  s += walk(n);
  return s + a[(n + t) & 15] + b[(n + 2 * t) & 15];
}
__global__ void arrays_through_memory(int* out, int n, int depth) { out[threadIdx.x] = owner(n, depth); }
long checksum(const int* out) {
  int host[64];
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  long sum = 0;
  for (int v : host) sum = sum * 31 + v;
  return sum;
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  arrays_through_memory<<<1, 64>>>(out, 16, 2);
  CHECK(cudaDeviceSynchronize());
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  std::printf("stack limit %zu: checksum %ld\n", limit, checksum(out));
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 2048));
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  arrays_through_memory<<<1, 64>>>(out, 16, 5);
  CHECK(cudaDeviceSynchronize());
  std::printf("stack limit %zu: checksum %ld\n", limit, checksum(out));
}
