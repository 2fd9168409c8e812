// cucatch-expect: clean
// One-past-the-end pointers: `end = p + n` is formed (never dereferenced) and loops run
// `while (q != end)`, forwards and backwards, over allocations of odd sizes.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void sum_range(const int* p, int n, long long* out) {
  const int* end = p + n;
  long long s = 0;
  for (const int* q = p; q != end; ++q) s += *q;
  out[0] = s;
  long long r = 0;
  const int* q = end;
  while (q != p) { --q; r = r * 3 + *q; }
  out[1] = r;
}

__global__ void copy_segments(const int* src, const int* offsets, int* dst) {
  const int* q = src + offsets[threadIdx.x];
  const int* end = src + offsets[threadIdx.x + 1];  // for the last thread: one past the end
  int* d = dst + offsets[threadIdx.x];
  while (q != end) *d++ = *q++ + 1;
}

int main() {
  const int sizes[4] = {1, 250, 333, 1000};
  long long total = 0, mixed = 0;
  for (int k = 0; k < 4; ++k) {
    int n = sizes[k];
    int* h = (int*)malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) h[i] = (i * 37 + k) % 101;
    int* d;
    long long* out;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMalloc(&out, 2 * sizeof(long long)));
    CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    sum_range<<<1, 1>>>(d, n, out);
    CHECK(cudaGetLastError());
    long long r[2];
    CHECK(cudaMemcpy(r, out, sizeof(r), cudaMemcpyDeviceToHost));
    total += r[0];
    mixed ^= r[1];
    CHECK(cudaFree(d));
    CHECK(cudaFree(out));
    free(h);
  }
  const int nseg = 8, n = 250;
  int h_off[nseg + 1] = {0, 3, 3, 40, 41, 100, 200, 249, n};
  int h_src[n], h_dst[n];
  for (int i = 0; i < n; ++i) h_src[i] = i * i % 97;
  int *src, *off, *dst;
  CHECK(cudaMalloc(&src, sizeof(h_src)));
  CHECK(cudaMalloc(&off, sizeof(h_off)));
  CHECK(cudaMalloc(&dst, sizeof(h_dst)));
  CHECK(cudaMemcpy(src, h_src, sizeof(h_src), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(off, h_off, sizeof(h_off), cudaMemcpyHostToDevice));
  copy_segments<<<1, nseg>>>(src, off, dst);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_dst, dst, sizeof(h_dst), cudaMemcpyDeviceToHost));
  long long seg = 0;
  for (int i = 0; i < n; ++i) seg += (long long)h_dst[i] * (i + 1);
  printf("total %lld mixed %lld segments %lld\n", total, mixed, seg);
  return 0;
}
