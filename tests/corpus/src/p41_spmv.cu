// corpus-nvrtc: 124 118
__global__ void csr_spmv(const int* rowptr, const int* cols, const double* vals, const double* x, double* y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double s = 0;
  for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += vals[k] * __ldg(&x[cols[k]]);
  y[r] = s;
}
