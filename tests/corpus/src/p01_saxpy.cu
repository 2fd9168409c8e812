// corpus-nvrtc: 124 118
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void daxpy_grid_stride(int n, double a, const double* x, double* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] += a * x[i];
}
