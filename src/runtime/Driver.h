// The real driver entry points the runtime itself calls, resolved through the driver's own
// cuGetProcAddress (never through cucatch's wrappers, so its own allocations stay untracked).
#pragma once

#include <cuda.h>

#include <string>

namespace cucatch::runtime {

struct Driver {
#define CUCATCH_DRIVER_FUNCTIONS(X)                                                               \
  X(cuCtxGetCurrent) X(cuMemAlloc) X(cuMemsetD32Async) X(cuMemcpyHtoDAsync)  \
  X(cuMemcpyDtoHAsync) X(cuStreamCreate) X(cuStreamSynchronize) X(cuMemHostRegister)            \
  X(cuMemHostGetDevicePointer) X(cuModuleGetGlobal) X(cuFuncGetModule) X(cuKernelGetFunction)    \
  X(cuFuncGetParamInfo) X(cuThreadExchangeStreamCaptureMode) X(cuGetErrorName) X(cuMemsetD2D32Async) \
  X(cuModuleGetFunctionCount) X(cuModuleEnumerateFunctions) X(cuFuncGetName) X(cuKernelGetParamInfo)    \
  X(cuFuncGetAttribute) X(cuCtxGetId) X(cuCtxPushCurrent) X(cuCtxPopCurrent)   \
  X(cuEventCreate) X(cuEventRecord) X(cuEventDestroy) X(cuStreamWaitEvent) X(cuStreamIsCapturing) \
  X(cuDevicePrimaryCtxGetState) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuMemHostAlloc)    \
  X(cuEventQuery) X(cuEventSynchronize) X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemcpyAsync) X(cuMemsetD2D8Async) \
  X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuModuleLoadData) X(cuLibraryLoadData) X(cuLinkAddData) \
  X(cuLinkCreate) X(cuLinkComplete) X(cuLinkDestroy) X(cuModuleUnload) X(cuModuleGetFunction) \
  X(cuLibraryGetModule) X(cuLibraryUnload) X(cuDeviceGetCount) X(cuStreamBatchMemOp) X(cuCtxGetLimit) \
  X(cuCtxSetLimit) X(cuFuncSetAttribute) X(cuMemGetAddressRange)
#define CUCATCH_DECLARE(name) decltype(&::name) name = nullptr;
  CUCATCH_DRIVER_FUNCTIONS(CUCATCH_DECLARE)
#undef CUCATCH_DECLARE
  // Entry points whose name resolves, for CUDA 13, to a newer signature than cuda.h gives the
  // plain name: the member has the signature cuGetProcAddress hands out.
#define CUCATCH_DRIVER_FUNCTIONS_RENAMED(X) X(cuCtxGetDevice) X(cuCtxSynchronize)
  decltype(&::cuCtxGetDevice_v2) cuCtxGetDevice = nullptr;      // (device, context)
  decltype(&::cuCtxSynchronize_v2) cuCtxSynchronize = nullptr;  // (context)

  // `r`, after warning on stderr that `what` failed when it is not CUDA_SUCCESS (nor
  // CUDA_ERROR_DEINITIALIZED: at exit, after the driver's own teardown, nothing can fail that
  // matters).
  CUresult check(CUresult r, const char* what) const;
  // The name of `r` (CUDA_ERROR_INVALID_IMAGE), or "error N" where the driver gives none.
  std::string errorName(CUresult r) const;
};

// Makes `context` current for its lifetime (when it is not already), for work on another
// context's tables.
class ContextScope {
 public:
  ContextScope(const Driver& d, CUcontext context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const Driver& d_;
  bool pushed_ = false;
};

}  // namespace cucatch::runtime
