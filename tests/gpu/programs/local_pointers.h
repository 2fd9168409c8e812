// Correct code that reaches local arrays through pointers of unknown origin (kept in global
// memory): functions with frames of their own read and write their callers' arrays, which lie
// above their own frames on the stack, also from recursion. Shared by ok_local_pointers_in_memory
// (-O2) and its debug build (-G): cucatch bounds such pointers below by the function's own frame
// (use after scope), and none of these accesses is below it. Also a pointer into a kernel's
// __grid_constant__ parameter (the parameter window, not the stack) handed to such functions.
#include "common.h"
__device__ int* kept[256];
__device__ __noinline__ int add_into(int t, int n) {
  int mine[32];
  for (int i = 0; i < 32; ++i) mine[i] = (t * 7 + i) % 13;
  int* theirs = kept[t];  // the kernel's array
  for (int i = 0; i < n; ++i) theirs[i] += mine[(i * 5 + t) & 31];
  return mine[t & 31];
}
__device__ __noinline__ int descend(int t, int level) {
  int buf[16];
  for (int i = 0; i < 16; ++i) buf[i] = level * 16 + i + t;
  int s = buf[(t + level) & 15];
  if (level > 0) s += descend(t, level - 1);
  s += kept[t][level];  // the kernel's array, from every depth
  return s;
}
__global__ void local_pointers(int* out, int n) {
  int t = int(threadIdx.x);
  int arr[32];
  for (int i = 0; i < 32; ++i) arr[i] = i * t % 11;
  kept[t] = arr;
  int r = add_into(t, n);
  r += descend(t, 3);
  for (int i = 0; i < 32; ++i) r += arr[(i * 3 + t) & 31];
  out[t] = r;
}
struct Table {
  int v[8];
};
__device__ __noinline__ int sum_table(const int* t, int n) {
  int loc[16];
  for (int i = 0; i < 16; ++i) loc[i] = t[i & 7] * i;
  return loc[n & 15] + t[n & 7];
}
__global__ void grid_constant_table(const __grid_constant__ Table table, int* out) {
  out[threadIdx.x] += sum_table(table.v, int(threadIdx.x));
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 256 * sizeof(int)));
  local_pointers<<<1, 256>>>(out, 32);
  Table table;
  for (int i = 0; i < 8; ++i) table.v[i] = 3 * i + 1;
  grid_constant_table<<<1, 256>>>(table, out);
  CHECK(cudaDeviceSynchronize());
  int host[256];
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  long sum = 0;
  for (int v : host) sum = sum * 31 + v;
  std::printf("checksum %ld\n", sum);
}
