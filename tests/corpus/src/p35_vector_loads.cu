// corpus-nvrtc: 124 118
__global__ void vec4(const float4* a, float4* b, const int2* c, int2* d, const double2* e, double2* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = __ldg(&a[i]);
  b[i] = make_float4(v.w, v.z, v.y, v.x);
  int2 w = c[i];
  d[i] = make_int2(w.y, w.x);
  double2 q = e[i];
  f[i] = make_double2(q.y, q.x);
}
