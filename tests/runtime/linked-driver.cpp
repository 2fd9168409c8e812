// A program linked with libcuda before libcucatch (as a CMake link line leaves it: the implicit
// libraries last) calls driver entry points by symbol; those calls must still reach cucatch's
// wrappers. libcucatch rebinds such references when it is loaded.
//
// No GPU needed: the program is linked with the toolkit's driver stub (run with a directory
// holding it as libcuda.so.1 on LD_LIBRARY_PATH) and CUCATCH_DEBUG=1; the stub's entry points
// fail, which is fine: what is checked is where the references lead.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <string>

// A cucatch-nvcc build references libcucatch (its dlsym, for the static CUDA runtime); so does
// this program, or the linker would drop it.
extern "C" int cucatch_runtime_abi_version();

namespace {
std::string objectOf(const void* p) {
  Dl_info info;
  if (!p || !dladdr(p, &info) || !info.dli_fname) return "(nothing)";
  return info.dli_fname;
}
}  // namespace

int main() {
  std::printf("runtime ABI %d\n", cucatch_runtime_abi_version());
  // An address taken in the program (a GOT slot of its own).
  volatile auto launch = &cuLaunchKernel;
  std::string launchObject = objectOf(reinterpret_cast<const void*>(launch));
  // A call (a PLT slot): CUCATCH_DEBUG says when it passes through cucatch.
  CUdeviceptr p = 0;
  CUresult r = cuMemAlloc(&p, 16);
  std::printf("cuMemAlloc returned %d\n", static_cast<int>(r));
  // An entry point cucatch does not wrap stays libcuda's.
  std::string initObject = objectOf(reinterpret_cast<const void*>(&cuInit));
  bool ok = launchObject.find("libcucatch") != std::string::npos && initObject.find("libcuda") != std::string::npos;
  std::printf("%s: &cuLaunchKernel in %s (libcucatch expected), &cuInit in %s (libcuda expected)\n",
              ok ? "ok" : "FAIL", launchObject.c_str(), initObject.c_str());
  return ok ? 0 : 1;
}
