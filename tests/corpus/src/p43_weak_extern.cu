// corpus-flags: -rdc=true
// corpus-nvrtc: 124 118
// Built with -rdc=true: the template instances of a non-inlined function become .weak .func.
template <typename T> __device__ __noinline__ T clampv(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }
__global__ void clamp_all(float* f, int* i, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) { f[t] = clampv(f[t], 0.f, 1.f); i[t] = clampv(i[t], 0, 255); }
}
