// The plain (uninstrumented) library of ok_rdc_entry_points: device functions whose unit
// defines no entry point, so the instrumented callers' .weak ones forward to them. (Loops kept
// rolled: the indirect call in the kernel's unit makes cucatch cap that unit at 64 registers, and
// nvlink refuses a kernel so capped that calls a function of more: plain nvcc unrolls
// plain_scale to 83. That limit predates the entry points; docs/design.md, "Launch validity".)
__device__ long long plain_dot(const int* a, const int* b, int n) {
  long long s = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) s += static_cast<long long>(a[i]) * b[i];
  return s;
}
__device__ void plain_scale(float* p, int n, float by) {
#pragma unroll 1
  for (int i = 0; i < n; ++i) p[i] *= by;
}
// Plain code calling back into the instrumented unit: by the function's own name, its forwarder,
// which looks the pointer up and passes the bounds on to the entry point.
__device__ int user_hook(const int* p, int n);
__device__ long long plain_hooked(const int* a, int n) { return 2ll * user_hook(a, n); }
