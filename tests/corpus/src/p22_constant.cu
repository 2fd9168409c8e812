// corpus-nvrtc: 124 118
__constant__ float coeffs[64];
__constant__ int lut[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
__global__ void fir(const float* in, float* out, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int k = 0; k < taps && k < 64; ++k) s += coeffs[k] * (i >= k ? in[i - k] : 0.0f);
  out[i] = s + lut[i & 15];
}
