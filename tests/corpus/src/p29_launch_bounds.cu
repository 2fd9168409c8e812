// corpus-nvrtc: 124 118
// Occupancy and register controls: __launch_bounds__ with and without a minimum number of
// resident blocks (.maxntid/.minnctapersm), __maxnreg__ (.maxnreg; unknown to NVRTC 11.8), and
// loops kept rolled with #pragma unroll 1 (.pragma "nounroll").
__global__ void __launch_bounds__(256, 4) bounded(float* d) { d[blockIdx.x * 256 + threadIdx.x] *= 3.0f; }
__global__ void __launch_bounds__(128) bounded_one(float* d) { d[threadIdx.x] += 1.0f; }
__global__ void __launch_bounds__(1024, 1) bounded_big(const float* in, float* out, int n) {
  float s = 0.f;
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += 1024) s += in[i] * in[i];
  out[blockIdx.x * 1024 + threadIdx.x] = s;
}
#if defined(__CUDACC_RTC__) && __CUDACC_VER_MAJOR__ < 12
#define MAXNREG(n)
#else
#define MAXNREG(n) __maxnreg__(n)
#endif
__global__ void MAXNREG(32) few_regs(float* d) { d[threadIdx.x] = d[threadIdx.x] * d[threadIdx.x + 1]; }
__global__ void MAXNREG(128) many_regs(const float4* in, float4* out, int n) {
  float4 acc[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc[k] = in[(threadIdx.x + k * 97) % n];
#pragma unroll 1
  for (int r = 0; r < 16; ++r)
#pragma unroll
    for (int k = 0; k < 8; ++k) acc[k] = make_float4(acc[k].y * 1.01f, acc[k].z + acc[(k + 1) & 7].x, acc[k].w, acc[k].x - 0.5f);
  float4 s = acc[0];
#pragma unroll
  for (int k = 1; k < 8; ++k) s = make_float4(s.x + acc[k].x, s.y + acc[k].y, s.z + acc[k].z, s.w + acc[k].w);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
