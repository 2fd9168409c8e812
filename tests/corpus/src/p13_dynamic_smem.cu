// corpus-nvrtc: 124 118
extern __shared__ float dyn[];
__global__ void reverse_block(float* d, int n) {
  int t = threadIdx.x;
  if (t < n) dyn[t] = d[blockIdx.x * n + t];
  __syncthreads();
  if (t < n) d[blockIdx.x * n + t] = dyn[n - t - 1];
}
__global__ void two_arrays(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  int* a = buf;
  int* b = buf + n;
  a[threadIdx.x] = in[threadIdx.x];
  b[threadIdx.x] = in[threadIdx.x] * 2;
  __syncthreads();
  out[threadIdx.x] = a[(threadIdx.x + 1) % n] + b[threadIdx.x];
}
