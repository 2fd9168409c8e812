// cucatch-expect: clean
// Dynamic shared memory (two arrays carved out of one extern buffer) filled by global
// loads, a block reduction, and a last block that is only partly full.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void block_sums(const int* in, int n, long long* sums, int* maxima) {
  extern __shared__ long long smem[];
  long long* s = smem;                                   // blockDim.x sums
  int* m = reinterpret_cast<int*>(smem + blockDim.x);    // blockDim.x maxima
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  s[threadIdx.x] = v;
  m[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      s[threadIdx.x] += s[threadIdx.x + stride];
      m[threadIdx.x] = max(m[threadIdx.x], m[threadIdx.x + stride]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) { sums[blockIdx.x] = s[0]; maxima[blockIdx.x] = m[0]; }
}

__global__ void stencil(const float* in, float* out, int n) {
  extern __shared__ float tile[];  // blockDim.x + 2 floats
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x + 1] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) tile[blockDim.x + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2];
}

int main() {
  const int n = 10007, threads = 256, blocks = (n + threads - 1) / threads;
  int* h = (int*)malloc(n * sizeof(int));
  float* hf = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) { h[i] = (i * 7919) % 10007; hf[i] = float(i % 10); }
  int *in, *maxima;
  long long* sums;
  float *fin, *fout;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&fin, n * sizeof(float)));
  CHECK(cudaMalloc(&fout, n * sizeof(float)));
  CHECK(cudaMalloc(&sums, blocks * sizeof(long long)));
  CHECK(cudaMalloc(&maxima, blocks * sizeof(int)));
  CHECK(cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(fin, hf, n * sizeof(float), cudaMemcpyHostToDevice));
  block_sums<<<blocks, threads, threads * (sizeof(long long) + sizeof(int))>>>(in, n, sums, maxima);
  stencil<<<blocks, threads, (threads + 2) * sizeof(float)>>>(fin, fout, n);
  CHECK(cudaGetLastError());
  long long hs[blocks], total = 0;
  int hm[blocks], best = 0;
  CHECK(cudaMemcpy(hs, sums, sizeof(hs), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hm, maxima, sizeof(hm), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hf, fout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) { total += hs[b] * (b + 1); best = hm[b] > best ? hm[b] : best; }
  double st = 0;
  for (int i = 0; i < n; ++i) st += hf[i] * (i % 3 + 1);
  printf("sums %lld max %d stencil %.1f\n", total, best, st);
  free(h);
  free(hf);
  return 0;
}
