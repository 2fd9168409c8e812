// cucatch-expect: launch-refused kernel=gather
// cucatch-build-env: CUCATCH_PTX_FLAGS=--register-limit=none
// Built without register caps (--register-limit=none), the instrumented gather kernel needs
// 110 registers (sm_90) and a 1024-thread block no longer launches. The runtime must say so,
// with the registers with and without instrumentation, rather than leave the program with a
// bare "too many resources requested". (Built the normal way it is capped and launches:
// ok_launch_full_block.)
#include "common.h"
__global__ void gather(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                       const float* __restrict__ d, const float* __restrict__ e, const float* __restrict__ f,
                       const float* __restrict__ g, const float* __restrict__ h, const int* __restrict__ idx,
                       float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < n; ++k) {
    int j = idx[i * n + k];
    s += a[j] * b[j] + c[j] * d[j] + e[j] * f[j] + g[j] * h[j];
    s += a[j + 1] * b[j + 2] + c[j + 3] * d[j + 4] + e[j + 5] * f[j + 6] + g[j + 7] * h[j + 8];
  }
  out[i] = s;
}
int main() {
  const int n = 4096;
  float* v;
  int* idx;
  CHECK(cudaMalloc(&v, (n + 16) * 4));
  CHECK(cudaMalloc(&idx, n * 4));
  CHECK(cudaMemset(v, 0, (n + 16) * 4));
  CHECK(cudaMemset(idx, 0, n * 4));
  gather<<<n / 1024, 1024>>>(v, v, v, v, v, v, v, v, idx, v, 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("launched\n");
}
