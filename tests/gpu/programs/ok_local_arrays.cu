// cucatch-expect: clean
// Correct local-memory code stays silent, with output identical to a plain build (its arrays
// checked one by one, the default since 2026-11-27): dynamically
// indexed local arrays (a per-thread histogram, a sorting network that spills), recursion with
// a local array per frame, and pointers to local arrays passed down to functions that are not
// inlined and written there.
#include "common.h"
__device__ __noinline__ void fill(int* a, int n, int seed) {
  for (int i = 0; i < n; ++i) a[i] = (seed * 31 + i * 17) % 97;
}
__device__ __noinline__ int depth_sum(int depth, int seed) {
  int local[6];
  fill(local, 6, seed + depth);
  int s = 0;
  for (int i = 0; i < 6; ++i) s += local[(i * 5 + depth) % 6];
  return depth == 0 ? s : s + depth_sum(depth - 1, seed);
}
__global__ void histogram(const int* keys, int n, int* out) {
  int bins[16];
  for (int i = 0; i < 16; ++i) bins[i] = 0;
  for (int i = 0; i < n; ++i) bins[(keys[i] + threadIdx.x) & 15] += 1;
  int s = 0;
  for (int i = 0; i < 16; ++i) s = s * 3 + bins[i];
  out[threadIdx.x] = s;
}
__global__ void sort_rows(const int* in, int* out, int k) {
  int v[32];
  for (int i = 0; i < 32; ++i) v[i] = in[(threadIdx.x * 32 + i * 7) % 1024];
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j + 1 < 32 - i; ++j)
      if (v[j] > v[j + 1]) { int t = v[j]; v[j] = v[j + 1]; v[j + 1] = t; }
  out[threadIdx.x] = v[k] + v[31 - k];
}
__global__ void recurse(int* out) { out[threadIdx.x] = depth_sum(static_cast<int>(threadIdx.x % 5), 3); }
__global__ void pass_down(int* out, int n) {
  int a[8], b[8];
  fill(a, n, 1);
  fill(b + 2, n - 2, 2);
  int s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[(i + 2) % n];
  out[threadIdx.x] = s;
}
int main() {
  int host[1024];
  for (int i = 0; i < 1024; ++i) host[i] = (i * 7919) % 1000;
  int *keys, *out;
  CHECK(cudaMalloc(&keys, sizeof host));
  CHECK(cudaMalloc(&out, 4 * 32 * sizeof(int)));
  CHECK(cudaMemcpy(keys, host, sizeof host, cudaMemcpyHostToDevice));
  histogram<<<1, 32>>>(keys, 64, out);
  sort_rows<<<1, 32>>>(keys, out + 32, 5);
  recurse<<<1, 32>>>(out + 64);
  pass_down<<<1, 32>>>(out + 96, 8);
  int result[128];
  CHECK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 128; ++i) std::printf("%d%c", result[i], i % 16 == 15 ? '\n' : ' ');
}
