// cucatch-expect: clean
// cucatch-link: -lcurand
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// cuRAND's host API writes into the program's buffers (tagged) from its own kernels, and keeps
// generator state in memory it allocates itself.
#include <curand.h>
#include "common.h"
int main() {
  const int n = 1 << 20;
  float* u;
  unsigned* bits;
  CHECK(cudaMalloc(&u, n * 4));
  CHECK(cudaMalloc(&bits, n * 4));
  sayWhetherTagged(u);
  for (curandRngType_t type : {CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MTGP32, CURAND_RNG_QUASI_SOBOL32}) {
    curandGenerator_t g;
    if (curandCreateGenerator(&g, type) != CURAND_STATUS_SUCCESS) return 2;
    curandSetPseudoRandomGeneratorSeed(g, 1234);
    if (curandGenerateUniform(g, u, n) != CURAND_STATUS_SUCCESS) return 2;
    if (curandGenerate(g, bits, n) != CURAND_STATUS_SUCCESS) return 2;
    static float h[n];
    CHECK(cudaMemcpy(h, u, n * 4, cudaMemcpyDeviceToHost));
    double s = 0;
    for (float v : h) s += v;
    std::printf("rng %d mean %.4f\n", int(type), s / n);
    curandDestroyGenerator(g);
  }
}
