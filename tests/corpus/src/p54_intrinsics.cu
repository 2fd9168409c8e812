// corpus-nvrtc: 124 118
// Math and integer intrinsics: fast approximate math, explicit rounding modes, SIMD video
// instructions, dp4a, funnel shifts, byte permutes, bit-field extract/insert, find-nth-set,
// timers, traps, breakpoints and assertions (a call to the external __assertfail).
#ifndef __CUDACC_RTC__
#include <cassert>
#else
extern "C" __device__ void __assertfail(const char*, const char*, unsigned, const char*, size_t);
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
#endif

__global__ void fast_math(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float a = __sinf(v) + __cosf(v) + __expf(v * 0.1f) + __logf(fabsf(v) + 1.f) + __powf(fabsf(v), 0.3f);
  float b = __fdividef(a, v + 3.f) + __frcp_rn(v + 1.f) + __fsqrt_rd(fabsf(v)) + __frsqrt_rn(fabsf(v) + 2.f);
  float c = __fadd_rz(a, b) * __fmul_ru(a, 0.5f) + __fmaf_rn(a, b, v) + __fsub_rd(b, a) + __fdiv_ru(a, 7.f);
  float d = __saturatef(v) + exp2f(v) + log2f(fabsf(v) + 1.f) + tanhf(v) + copysignf(v, -a) + nextafterf(v, 0.f);
  float e = erfcinvf(0.5f + 0.25f * __saturatef(v)) + lgammaf(fabsf(v) + 1.f) + cbrtf(v) + hypotf(a, b) + atan2f(c, d);
  float s, co;
  sincospif(v, &s, &co);
  y[i] = a + b + c + d + e + s * co + (float)__float2int_rd(v) + __int_as_float(__float_as_int(v) & 0x7f7fffff) +
         (float)__float2uint_ru(fabsf(v)) + __uint2float_rz(i) + (float)__float2ll_rn(v * 1e6f);
}

__global__ void double_rounding(const double* x, double* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  y[i] = __dadd_rd(v, 1e-17) + __dmul_ru(v, 3.0) + __ddiv_rn(v, 7.0) + __dsqrt_rz(fabs(v)) + __drcp_rn(v + 2.0) +
         __fma_rz(v, v, -1.0) + __hiloint2double(__double2hiint(v), 0) + (double)__double2ll_rz(v) + rint(v) + trunc(v);
  z[i] = __double2float_rz(v) + __double2float_ru(v) + (float)__double2int_rn(v);
}

__global__ void int_intrinsics(const unsigned* a, const unsigned* b, unsigned* out, unsigned long long* wide, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned r = __byte_perm(x, y, 0x5140) + __funnelshift_l(x, y, y & 31) + __funnelshift_rc(x, y, 40);
  r += __vadd4(x, y) + __vsub2(x, y) + __vabsdiffu4(x, y) + __vmaxu4(x, y) + __vcmpgtu4(x, y) + __vavgu2(x, y);
#if !(defined(__CUDACC_RTC__) && __CUDACC_VER_MAJOR__ < 12)   // NVRTC 11.8 leaves these undefined
  r += (unsigned)__dp4a((int)x, (int)y, 7) + (unsigned)__dp2a_lo(x, y, 3u);
#endif
  r += __sad(x, y, 1u) + __usad(x, y, 2u) + __umulhi(x, y) + (unsigned)__mulhi((int)x, (int)y) + (unsigned)__mul24((int)x, (int)y);
  r += __ffs(x) + __ffsll((long long)y << 7) + __popcll(((unsigned long long)x << 32) | y) + __clzll((long long)x);
  r += __fns(x, 0, 3) + __hadd((int)x, (int)y) + __rhadd((int)x, (int)y) + __urhadd(x, y) + __brevll(y) % 97;
  unsigned field, ins;
  asm("bfe.u32 %0, %1, 8, 5;" : "=r"(field) : "r"(x));
  asm("bfi.b32 %0, %1, %2, 4, 6;" : "=r"(ins) : "r"(field), "r"(y));
  r += field + ins;
  out[i] = r;
  wide[i] = __umul64hi((unsigned long long)x * 0x100000001ull, y | 1ull) + __brevll((unsigned long long)r);
}

__global__ void timers_and_traps(int* data, unsigned long long* times, int mode) {
  unsigned long long t0 = clock64(), g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  unsigned active = __activemask();
  __syncwarp(active);
  __nanosleep(100);
  if (mode == 1) __trap();
  if (mode == 2) __brkpt();
  assert(data[threadIdx.x] >= 0);
  if (threadIdx.x < 64) asm volatile("bar.sync 1, 64;");
  else asm volatile("bar.arrive 1, 64;");
  unsigned smid, warpid, nsmid;
  asm("mov.u32 %0, %%smid;" : "=r"(smid));
  asm("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  times[threadIdx.x] = clock64() - t0 + g0 + smid + warpid + nsmid + clock() + active;
}
