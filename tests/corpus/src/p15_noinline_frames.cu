// corpus-nvrtc: 124 118
__device__ __noinline__ int sum_window(const int* a, int start, int len) {
  int window[16];
  for (int k = 0; k < 16; ++k) window[k] = a[start + k];
  int s = 0;
  for (int k = 0; k < len && k < 16; ++k) s += window[(start + k) & 15];
  return s;
}
__device__ __noinline__ void fill(float* p, int n, float v) { for (int i = 0; i < n; ++i) p[i] = v; }
__global__ void frames(const int* a, int* out, float* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = sum_window(a, i, n);
  fill(f + i * 4, 4, (float)i);
}
