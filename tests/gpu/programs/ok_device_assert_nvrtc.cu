// cucatch-expect: clean
// cucatch-link: -lcuda -lnvrtc
// The same with the driver API called by symbol and a kernel NVRTC compiles at run time (as
// cuda-samples' simpleAssert_nvrtc): its own context, a cubin loaded with cuModuleLoadData, a
// launch with cuLaunchKernel; cuCtxSynchronize must return CUDA_ERROR_ASSERT.
#include <cuda.h>
#include <nvrtc.h>
#include <string>
#include <vector>
#include "common.h"
#define DRIVER(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = "?"; cuGetErrorName(r_, &s_); \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_); std::exit(2); } } while (0)
#define RTC(x) do { nvrtcResult r_ = (x); if (r_ != NVRTC_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, nvrtcGetErrorString(r_)); std::exit(2); } } while (0)
const char* kSource = R"(
extern "C" __global__ void count_below(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(i != 77 || n > 1000);
}
)";
int main() {
  DRIVER(cuInit(0));
  CUdevice device;
  DRIVER(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  DRIVER(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  DRIVER(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  nvrtcProgram program;
  RTC(nvrtcCreateProgram(&program, kSource, "assert_kernel.cu", 0, nullptr, nullptr));
  std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str()};
  RTC(nvrtcCompileProgram(program, 1, options));
  size_t size = 0;
  RTC(nvrtcGetCUBINSize(program, &size));
  std::vector<char> cubin(size);
  RTC(nvrtcGetCUBIN(program, cubin.data()));
  RTC(nvrtcDestroyProgram(&program));
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
