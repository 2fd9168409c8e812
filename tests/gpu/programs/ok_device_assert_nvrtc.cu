// cucatch-expect: clean
// cucatch-link: -lcuda -lnvrtc
// cucatch-jit-expect-note: not instrumented: a cubin
// The same with the driver API called by symbol and a kernel NVRTC compiles at run time (as
// cuda-samples' simpleAssert_nvrtc): its own context, a cubin loaded with cuModuleLoadData, a
// launch with cuLaunchKernel; cuCtxSynchronize must return CUDA_ERROR_ASSERT.
#include "runtime_compile.h"
const char* kSource = R"(
extern "C" __global__ void count_below(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(i != 77 || n > 1000);
}
)";
int main() {
  std::vector<char> cubin = compileAtRunTime(kSource, "assert_kernel.cu", RuntimeCode::Cubin);
  CUdevice device;
  DRIVER(cuDeviceGet(&device, 0));
  CUcontext context;
  CUctxCreateParams params{};
  DRIVER(cuCtxCreate(&context, &params, 0, device));
  CUmodule module;
  DRIVER(cuModuleLoadData(&module, cubin.data()));
  CUfunction kernel;
  DRIVER(cuModuleGetFunction(&kernel, module, "count_below"));
  int n = 60;
  void* args[] = {&n};
  DRIVER(cuLaunchKernel(kernel, 2, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CUresult r = cuCtxSynchronize();
  const char* name = "?";
  cuGetErrorName(r, &name);
  std::fflush(stdout);
  std::printf("cuCtxSynchronize: %s\n", name);
  return r == CUDA_ERROR_ASSERT ? 0 : 1;
}
