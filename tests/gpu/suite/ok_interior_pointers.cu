// cucatch-expect: clean
// Interior pointers (into the middle of allocations) stored in device memory, by the host
// and by a kernel, and dereferenced later by another kernel.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

const int kRows = 16, kLen = 250;

__global__ void make_views(int* data, int** views) {
  int r = threadIdx.x;
  if (r < kRows) views[r] = data + r * kLen + (r % 3);  // interior pointers
}

__global__ void use_views(int* const* views, int count, int len) {
  int r = blockIdx.x;
  int* v = views[r % count];
  for (int i = threadIdx.x; i < len; i += blockDim.x) atomicAdd(&v[i], r + 1);
}

int main() {
  const int n = kRows * kLen + 2;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = i % 13;
  int *data, **views, **host_views_d;
  CHECK(cudaMalloc(&data, n * sizeof(int)));
  CHECK(cudaMalloc(&views, kRows * sizeof(int*)));
  CHECK(cudaMalloc(&host_views_d, 4 * sizeof(int*)));
  CHECK(cudaMemcpy(data, h, n * sizeof(int), cudaMemcpyHostToDevice));
  make_views<<<1, 32>>>(data, views);
  use_views<<<kRows, 64>>>(views, kRows, kLen - 2);
  // Interior pointers computed on the host; the last view ends exactly at the end of data.
  int* hv[4] = {data + 1, data + 1000, data + 2047, data + n - 100};
  CHECK(cudaMemcpy(host_views_d, hv, sizeof(hv), cudaMemcpyHostToDevice));
  use_views<<<8, 64>>>(host_views_d, 4, 100);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, data, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += (long long)h[i] * (i % 1000 + 1);
  printf("checksum %lld\n", s);
  free(h);
  return 0;
}
