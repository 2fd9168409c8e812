// Correct local-memory code (shared by ok_local_arrays, optimized, and ok_local_arrays_debug,
// -G, where every access goes through the generic frame pointer): dynamically indexed local
// arrays (a per-thread histogram, a sorting network that spills), recursion with a local array
// per frame, pointers to local arrays passed down to functions that are not inlined and written
// there (one from the middle of its array), and a struct with two member arrays read whole,
// byte by byte, beside another array. Its arrays are checked one by one (the default since
// 2026-11-27), and its output must be that of a plain build.
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
struct Pair {
  int a[4];
  float b[4];
};
__device__ __noinline__ unsigned hash_bytes(const unsigned char* c, int n) {
  unsigned h = 5381;
  for (int i = 0; i < n; ++i) h = h * 33 + c[i];
  return h;
}
__global__ void struct_bytes(int* out, int n) {
  Pair p;
  int other[4];
  for (int i = 0; i < 4; ++i) {
    p.a[i] = i * n + int(threadIdx.x);
    p.b[i] = float(i) + 0.5f;
    other[i] = i * 7;
  }
  const unsigned char* c = reinterpret_cast<const unsigned char*>(&p);
  unsigned h = 0;
  for (int i = 0; i < n; ++i) h = h * 31 + c[i];  // n = sizeof(Pair): the whole struct
  h += hash_bytes(c, n) + hash_bytes(reinterpret_cast<const unsigned char*>(p.b), n / 2);
  out[threadIdx.x] = int(h) + other[(threadIdx.x + n) & 3] + p.a[threadIdx.x & 3];
}
int main() {
  int host[1024];
  for (int i = 0; i < 1024; ++i) host[i] = (i * 7919) % 1000;
  int *keys, *out;
  CHECK(cudaMalloc(&keys, sizeof host));
  CHECK(cudaMalloc(&out, 5 * 32 * sizeof(int)));
  CHECK(cudaMemcpy(keys, host, sizeof host, cudaMemcpyHostToDevice));
  histogram<<<1, 32>>>(keys, 64, out);
  sort_rows<<<1, 32>>>(keys, out + 32, 5);
  recurse<<<1, 32>>>(out + 64);
  pass_down<<<1, 32>>>(out + 96, 8);
  struct_bytes<<<1, 32>>>(out + 128, int(sizeof(Pair)));
  int result[160];
  CHECK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 160; ++i) std::printf("%d%c", result[i], i % 16 == 15 ? '\n' : ' ');
}
