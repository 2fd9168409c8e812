// cucatch-expect: out-of-bounds write 4 kernel=write_past
// cucatch-link: -lcuda
// cucatch-module-files
// cucatch-jit-expect: clean
// cucatch-jit-expect-note: not instrumented: a cubin
// A program that loads a module, launches its kernel and unloads it, again and again, as JIT
// compilers do (CuPy, Numba, NVRTC users): this source's cubin (instrumented by cucatch-nvcc),
// then PTX text (never instrumented in the cucatch-nvcc build), in turn, a pointer from
// cudaMalloc (tagged) to every kernel; last, the cubin once more, whose second kernel writes one
// past the end. The driver hands a new module and its kernels the handles of unloaded ones (it
// says on stderr how often), and what the runtime learned about a handle must go with its
// module: a plain kernel taken for the instrumented one that had its handle would be given the
// tagged pointer and fault, and an instrumented module taken for the one unloaded at its handle
// would never have its state filled, so its kernel could not report. The plain build and JIT
// mode (where the cubin holds SASS only) run it unchecked; the overflow goes unnoticed there.
#ifdef CUCATCH_MODULE_FILE
extern "C" __global__ void scale(float* p, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= a;
}

extern "C" __global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
#else
#include <set>
#include <vector>

#include "driver_api.h"
// p[i] += b, written for this test (sm_90, PTX ISA 8.0).
const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry add(.param .u64 p, .param .u32 n, .param .f32 b)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  ld.param.f32 %f1, [b];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f3, %f2, %f1;
  st.global.f32 [%rd4], %f3;
DONE:
  ret;
}
)";

int main(int, char** argv) {
  int n = 1 << 12;
  float* y = nullptr;
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  std::vector<float> host(n, 1.0f);
  CHECK(cudaMemcpy(y, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUdeviceptr p = reinterpret_cast<CUdeviceptr>(y);
  const std::string cubin = cubinBeside(argv[0]);
  std::set<CUmodule> modules;
  std::set<CUfunction> functions;
  int seenAgain = 0;
  for (int round = 0; round < 24; ++round) {
    const bool instrumented = round % 2 == 0;
    CUmodule module;
    CUfunction f;
    if (instrumented) DRIVER(cuModuleLoad(&module, cubin.c_str()));
    else DRIVER(cuModuleLoadData(&module, kPtx));
    DRIVER(cuModuleGetFunction(&f, module, instrumented ? "scale" : "add"));
    seenAgain += !modules.insert(module).second + !functions.insert(f).second;
    float x = instrumented ? 2.0f : 1.0f;  // (doubled, then one added)
    void* args[] = {&p, &n, &x};
    DRIVER(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    DRIVER(cuCtxSynchronize());
    DRIVER(cuModuleUnload(module));
  }
  std::fprintf(stderr, "module and kernel handles handed out again: %d\n", seenAgain);
  CHECK(cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : host) sum += v;
  std::printf("sum after 24 rounds: %.0f\n", sum);
  std::fflush(stdout);

  CUmodule module;
  CUfunction writePast;
  DRIVER(cuModuleLoad(&module, cubin.c_str()));
  DRIVER(cuModuleGetFunction(&writePast, module, "write_past"));
  void* args[] = {&p, &n};
  DRIVER(cuLaunchKernel(writePast, (n + 256) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  DRIVER(cuCtxSynchronize());
  DRIVER(cuModuleUnload(module));
  std::printf("done\n");
  return 0;
}
#endif
