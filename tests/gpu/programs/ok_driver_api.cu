// cucatch-expect: clean
// cucatch-link: -lcuda
// cucatch-expect-tagged
// A program that calls the driver API by symbol (linked with -lcuda, as NVRTC users and CuPy
// are): it allocates with cuMemAlloc, loads a kernel from PTX text at run time with
// cuModuleLoadData and launches it with cuLaunchKernel. Before, none of these reached cucatch,
// and the tagged pointer from the CUDA runtime's cudaMalloc reached the (uninstrumented)
// kernel, which faulted. (JIT instrumentation of such PTX is a separate feature: here the
// kernel runs unchecked, with untagged arguments.)
#include "driver_api.h"
// y[i] = a * x[i] + y[i], written for this test (sm_90, PTX ISA 8.0).
const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry axpy(.param .u64 y, .param .u64 x, .param .f32 a, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y];
  ld.param.u64 %rd2, [x];
  ld.param.f32 %f1, [a];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.s32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd7];
  ld.global.f32 %f3, [%rd6];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd6], %f4;
DONE:
  ret;
}
)";
int main() {
  const int n = 1 << 16;
  // The CUDA runtime's allocation (tagged under cucatch) and the driver's own.
  float* y;
  CHECK(cudaMalloc(&y, n * 4));
  sayWhetherTagged(y);
  CUdeviceptr x;
  DRIVER(cuMemAlloc(&x, n * 4));
  static float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = i % 100, hy[i] = 1.0f;
  DRIVER(cuMemcpyHtoD(x, hx, n * 4));
  CHECK(cudaMemcpy(y, hy, n * 4, cudaMemcpyHostToDevice));
  CUmodule module;
  CUfunction axpy;
  DRIVER(cuModuleLoadData(&module, kPtx));
  DRIVER(cuModuleGetFunction(&axpy, module, "axpy"));
  CUdeviceptr yd = reinterpret_cast<CUdeviceptr>(y);
  float a = 2.0f;
  int count = n;
  void* args[] = {&yd, &x, &a, &count};
  DRIVER(cuLaunchKernel(axpy, n / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  DRIVER(cuCtxSynchronize());
  DRIVER(cuMemcpyDtoH(hy, yd, n * 4));
  double s = 0;
  for (float v : hy) s += v;
  std::printf("sum %.0f\n", s);
  DRIVER(cuMemFree(x));
  DRIVER(cuModuleUnload(module));
}
