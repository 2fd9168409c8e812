// corpus-nvrtc: 124 118
// A variable-sized stack allocation. nvcc accepts __builtin_alloca (the PTX gets alloca/stacksave
// style code on a dynamic local depot); NVRTC has no such builtin, so there the scratch space is
// a fixed local array indexed dynamically.
__global__ void dynamic_local(const int* sizes, float* out) {
  int n = sizes[threadIdx.x] & 31;
#ifndef __CUDACC_RTC__
  float* scratch = (float*)__builtin_alloca(n * sizeof(float) + 4);
#else
  float scratch[32];
#endif
  for (int i = 0; i < n; ++i) scratch[i] = i * 0.5f;
  float s = 0;
  for (int i = 0; i < n; ++i) s += scratch[(i * 7) % n];
  out[threadIdx.x] = s;
}

__device__ __noinline__ int nested_scratch(const int* in, int depth) {
  int n = (in[depth & 7] & 15) + 1;
#ifndef __CUDACC_RTC__
  int* buf = (int*)__builtin_alloca(n * sizeof(int));
#else
  int buf[16];
#endif
  for (int i = 0; i < n; ++i) buf[i] = in[(i + depth) & 7] * (i + 1);
  int s = 0;
  for (int i = n - 1; i >= 0; --i) s = s * 3 + buf[i];
  return depth > 0 ? s + nested_scratch(in, depth - 1) : s;
}

__global__ void alloca_in_callee(const int* in, int* out) { out[threadIdx.x] = nested_scratch(in, threadIdx.x & 3); }
