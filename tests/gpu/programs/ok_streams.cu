// cucatch-expect: clean
// cucatch-expect-checked: square
#include <vector>
#include "common.h"
__global__ void square(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * p[i];
}
int main() {
  const int streams = 4, n = 1 << 16;
  int* host;
  CHECK(cudaMallocHost(&host, streams * n * sizeof(int)));
  for (int i = 0; i < streams * n; ++i) host[i] = i % 1000;
  std::vector<cudaStream_t> s(streams);
  std::vector<int*> d(streams);
  for (int k = 0; k < streams; ++k) {
    CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    CHECK(cudaMallocAsync(&d[k], n * sizeof(int), s[k]));
    CHECK(cudaMemcpyAsync(d[k], host + k * n, n * sizeof(int), cudaMemcpyHostToDevice, s[k]));
    square<<<n / 256, 256, 0, s[k]>>>(d[k], n);
    CHECK(cudaMemcpyAsync(host + k * n, d[k], n * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
    CHECK(cudaFreeAsync(d[k], s[k]));
  }
  CHECK(cudaDeviceSynchronize());
  long sum = 0;
  for (int i = 0; i < streams * n; ++i) sum += host[i];
  CHECK(cudaFreeHost(host));
  std::printf("sum %ld\n", sum);
}
