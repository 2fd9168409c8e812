// For the programs that call the driver API by symbol (linked with -lcuda).
#pragma once
#include <cuda.h>
#include <string>
#include "common.h"

#define DRIVER(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = "?"; cuGetErrorName(r_, &s_); \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_); std::exit(2); } } while (0)

// The module files tests/CMakeLists.txt builds from a "// cucatch-module-files" program's own
// source, found beside the program (`argv0`, NAME.plain, NAME.ptx or NAME.cucatch): its cubin
// (NAME.plain.cubin by nvcc, NAME.cucatch.cubin by cucatch-nvcc; the PTX-only build's
// NAME.ptx.cubin is nvcc's) and its PTX (NAME.module.ptx, by nvcc -ptx).
inline std::string cubinBeside(const char* argv0) { return std::string(argv0) + ".cubin"; }
inline std::string ptxBeside(const char* argv0) {
  std::string program = argv0;
  return program.substr(0, program.rfind('.')) + ".module.ptx";
}

// Device 0's primary context, made current, as a program of the driver API alone starts.
inline void usePrimaryContextOfDevice0() {
  DRIVER(cuInit(0));
  CUdevice device;
  DRIVER(cuDeviceGet(&device, 0));
  CUcontext context;
  DRIVER(cuDevicePrimaryCtxRetain(&context, device));
  DRIVER(cuCtxSetCurrent(context));
}
