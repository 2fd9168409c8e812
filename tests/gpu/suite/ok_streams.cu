// cucatch-expect: clean
// Four streams, each copying its chunk of one device buffer in (cudaMemcpyAsync on an
// interior pointer), running a kernel on it and copying it back.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void polish(int* chunk, int n, int stream_id) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) chunk[i] = chunk[i] * (stream_id + 2) - i;
}

int main() {
  const int kStreams = 4, chunk = 100003, n = kStreams * chunk;
  int *h, *d;
  CHECK(cudaMallocHost(&h, n * sizeof(int)));
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  for (int i = 0; i < n; ++i) h[i] = i % 1000;
  cudaStream_t s[kStreams];
  for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamCreate(&s[k]));
  for (int k = 0; k < kStreams; ++k) {
    int* hc = h + k * chunk;
    int* dc = d + k * chunk;
    CHECK(cudaMemcpyAsync(dc, hc, chunk * sizeof(int), cudaMemcpyHostToDevice, s[k]));
    polish<<<(chunk + 255) / 256, 256, 0, s[k]>>>(dc, chunk, k);
    polish<<<(chunk + 255) / 256, 256, 0, s[k]>>>(dc, chunk, k);
    CHECK(cudaMemcpyAsync(hc, dc, chunk * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
  }
  CHECK(cudaGetLastError());
  for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamSynchronize(s[k]));
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += (long long)h[i] * (i % 11 + 1);
  printf("checksum %lld\n", sum);
  for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamDestroy(s[k]));
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(h));
  return 0;
}
