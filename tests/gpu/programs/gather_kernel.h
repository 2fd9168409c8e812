// A kernel with nine pointers live across its loop, for the launch-validity programs: with
// tags on and no register cap, its instrumented form needs 100 registers on sm_90 (ptxas 13.0) (a
// 1024-thread block allows 64). ok_launch_full_block launches it capped;
// refused_launch_explained, built without caps, has the launch refused.
#pragma once
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
