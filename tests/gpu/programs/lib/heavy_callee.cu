// The other compilation unit of ok_rdc_heavy_callee: a device function with no kernel beside
// it. Plain, ptxas gives it 60 registers (sm_90, --compile-only); instrumented without a cap, 84.
__device__ float weighted_sum(const float* p, int n) {
  float acc[8] = {0};
  for (int i = 0; i < n; ++i) acc[i & 7] += p[i] * p[(i * 7) % n] + p[(i * 13) % n];
  float s = 0;
  for (int k = 0; k < 8; ++k) s += acc[k] * p[k];
  return s;
}
