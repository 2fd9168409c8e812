// cucatch-expect: clean
// cucatch-flags: -G
// Shared memory and __constant__ arrays in a debug build (-G), where every access is generic:
// a tiled transpose, a stencil with halo, dynamic shared memory in two parts, shared atomics,
// a device function (not inlined at -G) writing through a shared pointer, and a __constant__
// table. Silent, with the plain build's output.
#include <vector>
#include "common.h"
__constant__ int weights[5] = {1, 2, 3, 2, 1};

__device__ void put(int* slot, int v) { *slot = v; }

__global__ void transpose(const int* in, int* out) {
  __shared__ int tile[32][33];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void stencil(const int* in, int* out, int n) {
  __shared__ int s[64 + 4];
  int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + 2;
  s[l] = in[g];
  if (threadIdx.x < 2) {
    s[l - 2] = g >= 2 ? in[g - 2] : 0;
    s[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0;
  }
  __syncthreads();
  int v = 0;
  for (int k = -2; k <= 2; ++k) v += s[l + k] * weights[k + 2];
  put(&out[g], v);
}

__global__ void parts(const int* in, int* out, int n) {
  extern __shared__ int dyn[];
  int* a = dyn;
  int* counts = dyn + n;
  __shared__ unsigned hist[16];
  if (threadIdx.x < 16) hist[threadIdx.x] = 0;
  a[threadIdx.x] = in[threadIdx.x];
  put(&counts[threadIdx.x], threadIdx.x);
  __syncthreads();
  atomicAdd(&hist[a[threadIdx.x] & 15], 1u);
  __syncthreads();
  out[threadIdx.x] = a[n - 1 - threadIdx.x] + counts[threadIdx.x] + hist[threadIdx.x & 15];
}

int main() {
  std::vector<int> h(1024);
  for (int i = 0; i < 1024; ++i) h[i] = (i * 29) % 97;
  int *in, *out;
  CHECK(cudaMalloc(&in, 1024 * sizeof(int)));
  CHECK(cudaMalloc(&out, 1024 * sizeof(int)));
  CHECK(cudaMemcpy(in, h.data(), 1024 * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> r(1024);
  auto show = [&](const char* what, int n) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(r.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    long s = 0;
    for (int i = 0; i < n; ++i) s += long(r[i]) * (i % 5 + 1);
    std::printf("%s %ld\n", what, s);
  };
  transpose<<<1, dim3(32, 32)>>>(in, out);
  show("transpose", 1024);
  stencil<<<16, 64>>>(in, out, 1024);
  show("stencil", 1024);
  parts<<<1, 128, 2 * 128 * sizeof(int)>>>(in, out, 128);
  show("parts", 128);
  std::printf("done\n");
}
