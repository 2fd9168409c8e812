// cucatch-expect: clean
// cucatch-build-env: CUCATCH_PTX_FLAGS=--loop-ranges
// Strided loops that reach exactly the last element (unsigned and signed induction variables,
// steps of 1 and 32, a loop entered with its variable already past the bound): the range check
// before each loop passes or falls back to the per-access checks, and nothing is reported.
#include "common.h"
__global__ void strided(const float* vals, unsigned n, int m, float* out) {
  unsigned lane = threadIdx.x;
  float s = 0;
  for (unsigned j = lane; j < n; j += 32) s += vals[j];
  for (int i = int(lane) - 5; i < m; ++i)
    if (i >= 0) s += vals[i];
  for (unsigned j = n + lane; j < n; j += 32) s += vals[j];  // never entered
  out[lane] = s;
}
int main() {
  const unsigned n = 1000;
  float h[n];
  for (unsigned i = 0; i < n; ++i) h[i] = float(i % 7);
  float *vals, *out, r[32];
  CHECK(cudaMalloc(&vals, sizeof h));
  CHECK(cudaMalloc(&out, sizeof r));
  CHECK(cudaMemcpy(vals, h, sizeof h, cudaMemcpyHostToDevice));
  strided<<<1, 32>>>(vals, n, int(n), out);
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  double total = 0;
  for (float v : r) total += v;
  std::printf("total %.0f\n", total);
}
