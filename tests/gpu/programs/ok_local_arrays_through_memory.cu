// cucatch-expect: clean
// cucatch-expect-checked: arrays_through_memory
// Correct code that reaches its caller's two local arrays through pointers kept in global memory
// (no bounds come with them: the frame table finds the frame, and the unit's table of frame arrays
// the array): forward from one array's start, backwards from the other's end (an address that is
// also where the next array starts: both are the pointer's bounds), from the middle of an array
// in both directions, and the same again from a recursion's deeper frames. A check against the
// wrong one of two adjacent arrays would report one of these.
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
__global__ void arrays_through_memory(int* out, int n) { out[threadIdx.x] = owner(n, 1); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  arrays_through_memory<<<1, 64>>>(out, 16);
  CHECK(cudaDeviceSynchronize());
  int host[64];
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  long sum = 0;
  for (int v : host) sum = sum * 31 + v;
  std::printf("checksum %ld\n", sum);
}
