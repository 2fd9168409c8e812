// corpus-nvrtc: 124 118
// Generic addressing: one non-inlined function reached with pointers into global, shared, local
// and constant memory; isspacep queries; explicit conversions; loads and stores with cache
// operators (__ldcg/__ldca/__ldcs/__ldlu/__ldcv, __stcg/__stcs/__stwt/__stwb) and volatile ones.
__constant__ float const_weights[32];

__device__ __noinline__ float sum_generic(const float* p, int n, int stride) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += p[i * stride];
  return s;
}

__device__ __noinline__ int classify(const void* p) {
  return (__isGlobal(p) ? 1 : 0) | (__isShared(p) ? 2 : 0) | (__isLocal(p) ? 4 : 0) | (__isConstant(p) ? 8 : 0);
}

__global__ void spaces(const float* g, float* out, int* kinds, int sel) {
  __shared__ float sh[128];
  float loc[16];
  sh[threadIdx.x % 128] = g[threadIdx.x];
  for (int k = 0; k < 16; ++k) loc[k] = g[threadIdx.x + k] * 0.5f;
  __syncthreads();
  const float* pick = sel == 0 ? g : sel == 1 ? (const float*)sh : sel == 2 ? (const float*)loc : const_weights;
  float s = sum_generic(pick, 4, 1 + (sel & 1));
  s += sum_generic(g + threadIdx.x, 3, 2) + sum_generic(sh + (threadIdx.x & 63), 2, 8) + sum_generic(loc + (sel & 7), 2, 4);
  kinds[threadIdx.x] = classify(pick) + 16 * classify(out);
  size_t shared_off = __cvta_generic_to_shared(&sh[threadIdx.x & 127]);
  size_t global_addr = __cvta_generic_to_global(out);
  const void* back = __cvta_shared_to_generic(shared_off);
  out[threadIdx.x] = s + (float)(shared_off & 3) + (float)(global_addr & 1) + *(const float*)back;
}

__global__ void cache_ops(const float* in, float* out, const int4* vin, int4* vout, volatile int* flag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = __ldcg(in + i) + __ldca(in + i + 1) + __ldcs(in + i + 2) + __ldlu(in + i + 3) + __ldcv(in + i + 4) + __ldg(in + i + 5);
  int4 v = __ldcs(vin + i);
  __stcg(out + i, a);
  __stcs(out + n + i, a * 2.f);
  __stwt(out + 2 * n + i, a * 3.f);
  __stwb(out + 3 * n + i, a * 4.f);
  __stcs(vout + i, make_int4(v.w, v.z, v.y, v.x));
  while (flag[0] == 0) {}
  flag[1 + (i & 7)] = i;
}
