// corpus-nvrtc: 124 118
__global__ void dmath(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sin(x[i]) * exp(-x[i]) + sqrt(fabs(x[i])) + fma(x[i], 1e-3, 0.5) + rsqrt(x[i] + 2.0);
}
