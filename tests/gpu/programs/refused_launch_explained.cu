// cucatch-expect: launch-refused kernel=gather
// cucatch-build-env: CUCATCH_PTX_FLAGS=--register-limit=none
// Built without register caps (--register-limit=none), the instrumented gather kernel needs
// 100 registers (sm_90, ptxas 13.0) and a 1024-thread block no longer launches. The runtime must say so,
// with the registers with and without instrumentation, rather than leave the program with a
// bare "too many resources requested". (Built the normal way it is capped and launches:
// ok_launch_full_block.)
#include "common.h"
#include "gather_kernel.h"
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
