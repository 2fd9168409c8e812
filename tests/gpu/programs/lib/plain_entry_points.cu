// The plain (uninstrumented) library of ok_rdc_entry_points: device functions whose unit
// defines no entry point, so the instrumented callers' .weak ones forward to them. Plain nvcc
// gives plain_scale 83 registers (sm_90, -rdc): the kernel's unit, which makes an indirect call,
// used to be capped at 64 for it, and nvlink refused to link a kernel so capped that calls a
// function of more ("with max regcount of 64 calls function ... with regcount of 83").
__device__ long long plain_dot(const int* a, const int* b, int n) {
  long long s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<long long>(a[i]) * b[i];
  return s;
}
__device__ void plain_scale(float* p, int n, float by) {
  for (int i = 0; i < n; ++i) p[i] *= by;
}
// Plain code calling back into the instrumented unit: by the function's own name, its forwarder,
// which looks the pointer up and passes the bounds on to the entry point.
__device__ int user_hook(const int* p, int n);
__device__ long long plain_hooked(const int* a, int n) { return 2ll * user_hook(a, n); }
