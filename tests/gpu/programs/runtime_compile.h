// For the programs that compile a kernel at run time with NVRTC and run it through the driver
// API by symbol (linked with -lcuda -lnvrtc), as NVRTC users and cuda-samples' *_nvrtc do.
#pragma once
#include <nvrtc.h>
#include <string>
#include <vector>
#include "driver_api.h"

#define RTC(x) do { nvrtcResult r_ = (x); if (r_ != NVRTC_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, nvrtcGetErrorString(r_)); std::exit(2); } } while (0)

enum class RuntimeCode { Ptx, Cubin };

// `source`, named `name` (its file in reports), compiled by NVRTC for device 0: PTX for its
// compute_XX, or a cubin for its sm_XX; with line information; `relocatable` for a link.
inline std::vector<char> compileAtRunTime(const char* source, const char* name, RuntimeCode what,
                                          bool relocatable = false) {
  DRIVER(cuInit(0));
  CUdevice device;
  DRIVER(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  DRIVER(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  DRIVER(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  nvrtcProgram program;
  RTC(nvrtcCreateProgram(&program, source, name, 0, nullptr, nullptr));
  std::string arch = std::string("--gpu-architecture=") + (what == RuntimeCode::Ptx ? "compute_" : "sm_") +
                     std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str(), "--generate-line-info", "--relocatable-device-code=true"};
  RTC(nvrtcCompileProgram(program, relocatable ? 3 : 2, options));
  size_t size = 0;
  std::vector<char> code;
  if (what == RuntimeCode::Ptx) {
    RTC(nvrtcGetPTXSize(program, &size));
    code.resize(size);
    RTC(nvrtcGetPTX(program, code.data()));
  } else {
    RTC(nvrtcGetCUBINSize(program, &size));
    code.resize(size);
    RTC(nvrtcGetCUBIN(program, code.data()));
  }
  RTC(nvrtcDestroyProgram(&program));
  return code;
}

// The compute capability of device 0 as nvJitLink's and the linker's -arch want it: "sm_90".
inline std::string deviceArchName() {
  CUdevice device;
  DRIVER(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  DRIVER(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  DRIVER(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  return "sm_" + std::to_string(major * 10 + minor);
}
