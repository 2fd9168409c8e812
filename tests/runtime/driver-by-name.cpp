// Driver entry points looked up by symbol name must reach cucatch's wrappers, as those handed
// out by cuGetProcAddress do: cuBLASLt resolves cuLaunchKernel, cuMemAlloc_v2, ... with dlsym
// on libcuda, and a kernel launched through the real entry point would receive tagged pointers.
//
// No GPU needed: this process links libcucatch (whose dlsym interposes) and opens the driver
// stub library of the toolkit, which exports the same symbol names as the real libcuda. Each
// lookup is judged by the object the returned address lies in.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "object_of.h"

extern "C" int cucatch_runtime_abi_version();

namespace {

int failures = 0;

void expect(void* driver, const char* symbol, bool wrapped) {
  void* p = dlsym(driver, symbol);
  std::string object = objectOf(p);
  bool inCucatch = object.find("libcucatch") != std::string::npos;
  bool inDriver = object.find("libcuda") != std::string::npos;
  bool ok = p && (wrapped ? inCucatch : inDriver);
  std::printf("%s: dlsym(libcuda, %s) -> %s (%s expected)\n", ok ? "ok" : "FAIL", symbol, object.c_str(),
              wrapped ? "libcucatch" : "libcuda");
  failures += !ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATH/TO/libcuda.so (the toolkit's stub)\n", argv[0]);
    return 2;
  }
  std::printf("runtime ABI %d\n", cucatch_runtime_abi_version());
  void* driver = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    std::fprintf(stderr, "cannot open %s: %s\n", argv[1], dlerror());
    return 2;
  }
  // Wrapped: launches, allocations, copies, under cuda.h's name for the hooked ABI version and
  // its per-thread default stream variants.
  expect(driver, "cuLaunchKernel", true);
  expect(driver, "cuLaunchKernel_ptsz", true);
  expect(driver, "cuLaunchKernelEx", true);
  expect(driver, "cuMemAlloc_v2", true);
  expect(driver, "cuMemFree_v2", true);
  expect(driver, "cuMemcpyHtoD_v2", true);
  expect(driver, "cuMemcpyHtoD_v2_ptds", true);
  expect(driver, "cuMemcpy2DAsync_v2", true);
  expect(driver, "cuTensorMapReplaceAddress", true);
  expect(driver, "cuStreamBatchMemOp", true);
  expect(driver, "cuStreamBatchMemOp_v2_ptsz", true);
  // Both signatures that have a hook each: the plain name is the older one.
  expect(driver, "cuMemPrefetchAsync", true);
  expect(driver, "cuMemPrefetchAsync_v2", true);
  expect(driver, "cuGraphAddKernelNode", true);
  expect(driver, "cuGraphAddKernelNode_v2", true);
  // A signature that never changed: both names.
  expect(driver, "cuStreamWaitValue32", true);
  expect(driver, "cuStreamWaitValue32_v2", true);
  // cuGetProcAddress itself is always ours.
  expect(driver, "cuGetProcAddress_v2", true);
  // Not wrapped: the 32-bit-era cuMemAlloc (another signature), and entry points that take no
  // device pointer.
  expect(driver, "cuMemAlloc", false);
  expect(driver, "cuDeviceGet", false);
  expect(driver, "cuCtxGetCurrent", false);
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
