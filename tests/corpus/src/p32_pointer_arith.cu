// corpus-nvrtc: 124 118
__global__ void walk(const float* base, float* out, int stride, int n) {
  const float* p = base + blockIdx.x * stride;
  const float* end = p + n;
  float s = 0;
  for (; p < end; p += 2) s += *p;
  out[blockIdx.x] = s;
}
__global__ void select_arrays(const float* a, const float* b, float* out, int n) {
  int i = threadIdx.x;
  const float* src = (i & 1) ? a + 10 : b + 20;
  out[i] = src[i % n];
}
