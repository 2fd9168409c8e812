// corpus-nvrtc: 124 118
// Radix-2 complex FFT of one block-sized signal in shared memory: bit reversal with __brev,
// twiddles from sincospif, templated sizes with unrolled stages, and an inverse pass.
struct cfloat { float re, im; };
__device__ __forceinline__ cfloat cmul(cfloat a, cfloat b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
__device__ __forceinline__ cfloat cadd(cfloat a, cfloat b) { return {a.re + b.re, a.im + b.im}; }
__device__ __forceinline__ cfloat csub(cfloat a, cfloat b) { return {a.re - b.re, a.im - b.im}; }

template <int LOG2N, bool INVERSE>
__device__ void fft_shared(cfloat* s) {
  constexpr int N = 1 << LOG2N;
#pragma unroll
  for (int stage = 1; stage <= LOG2N; ++stage) {
    const int half = 1 << (stage - 1);
    for (int k = threadIdx.x; k < N / 2; k += blockDim.x) {
      int group = k / half, pos = k % half;
      int i = group * 2 * half + pos, j = i + half;
      float sn, cs;
      sincospif((INVERSE ? 1.f : -1.f) * (float)pos / (float)half, &sn, &cs);
      cfloat t = cmul({cs, sn}, s[j]);
      cfloat u = s[i];
      s[i] = cadd(u, t);
      s[j] = csub(u, t);
    }
    __syncthreads();
  }
}

template <int LOG2N>
__global__ void fft_roundtrip(const float2* in, float2* spectrum, float2* back) {
  constexpr int N = 1 << LOG2N;
  __shared__ cfloat s[N];
  const float2* src = in + (size_t)blockIdx.x * N;
  for (int k = threadIdx.x; k < N; k += blockDim.x) {
    unsigned r = __brev((unsigned)k) >> (32 - LOG2N);
    s[r] = {src[k].x, src[k].y};
  }
  __syncthreads();
  fft_shared<LOG2N, false>(s);
  for (int k = threadIdx.x; k < N; k += blockDim.x) spectrum[(size_t)blockIdx.x * N + k] = make_float2(s[k].re, s[k].im);
  __syncthreads();
  cfloat tmp[N / 64 > 0 ? N / 64 : 1];
  int cnt = 0;
  for (int k = threadIdx.x; k < N; k += blockDim.x) tmp[cnt++ % (N / 64 > 0 ? N / 64 : 1)] = s[k];
  __syncthreads();
  cnt = 0;
  for (int k = threadIdx.x; k < N; k += blockDim.x) {
    unsigned r = __brev((unsigned)k) >> (32 - LOG2N);
    s[r] = tmp[cnt++ % (N / 64 > 0 ? N / 64 : 1)];
  }
  __syncthreads();
  fft_shared<LOG2N, true>(s);
  for (int k = threadIdx.x; k < N; k += blockDim.x)
    back[(size_t)blockIdx.x * N + k] = make_float2(s[k].re / N, s[k].im / N);
}
template __global__ void fft_roundtrip<6>(const float2*, float2*, float2*);
template __global__ void fft_roundtrip<8>(const float2*, float2*, float2*);
