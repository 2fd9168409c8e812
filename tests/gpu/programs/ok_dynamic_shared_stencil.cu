// cucatch-expect: clean
// A 1-D stencil whose halo width is a kernel parameter, in dynamic shared memory: the tile is
// indexed at s[t + radius + j] with j from -radius to radius. To the PTX this is the array
// plus a uniform offset stepped below, the same as a carved part entered from below; by
// default dynamic shared memory is one region and this stays silent (--shared-parts would
// report it: docs/design.md).
#include "common.h"
__global__ void stencil(const float* in, float* out, int n, int radius) {
  extern __shared__ float s[];
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  s[t + radius] = g < n ? in[g] : 0.0f;
  if (t < radius) {
    s[t] = g >= radius ? in[g - radius] : 0.0f;
    int right = g + blockDim.x;
    s[t + radius + blockDim.x] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  float sum = 0;
  for (int j = -radius; j <= radius; ++j) sum += s[t + radius + j];
  if (g < n) out[g] = sum;
}
int main() {
  const int n = 4096, threads = 128;
  float *in, *out, host[n];
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) host[i] = i % 7;
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  for (int radius : {1, 3, 16}) {
    stencil<<<n / threads, threads, (threads + 2 * radius) * sizeof(float)>>>(in, out, n, radius);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float v : host) sum += v;
    std::printf("radius %d: %.1f\n", radius, sum);
  }
}
