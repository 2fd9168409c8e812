// Library entry points that libcucatch wraps (src/runtime/Libraries.h), looked up by name in the
// library's own handle, must reach the wrappers: a program or framework that opens cuFFT or
// cuBLAS with dlopen and calls through dlsym'd pointers handed the library tagged buffers,
// which its kernels read from memory. The wrapper must then call the library's definition.
//
// No GPU needed: this process links libcucatch (whose dlsym interposes) and opens the toolkit's
// libcufft and libcublas. Each lookup is judged by the object the returned address lies in; the
// wrapper's call is judged by the library's own answer for a plan that does not exist.
#include <dlfcn.h>
#include <sys/mman.h>

#include <cstdio>
#include <string>

#include "object_of.h"

namespace {

int failures = 0;

void* expect(void* library, const char* libraryName, const char* symbol, bool wrapped) {
  void* p = dlsym(library, symbol);
  std::string object = objectOf(p);
  bool ok = p && (object.find("libcucatch") != std::string::npos) == wrapped;
  std::printf("%s: dlsym(%s, %s) -> %s (%s expected)\n", ok ? "ok" : "FAIL", libraryName, symbol, object.c_str(),
              wrapped ? "libcucatch" : libraryName);
  failures += !ok;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PATH/TO/libcufft.so PATH/TO/libcublas.so\n", argv[0]);
    return 2;
  }
  void* cufft = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  void* cublas = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!cufft || !cublas) {
    std::fprintf(stderr, "cannot open the libraries: %s\n", dlerror());
    return 2;
  }
  auto* exec = reinterpret_cast<int (*)(int, void*, void*, int)>(expect(cufft, "libcufft", "cufftExecC2C", true));
  expect(cufft, "libcufft", "cufftSetWorkArea", true);
  expect(cufft, "libcufft", "cufftPlan1d", false);  // takes no buffer: not wrapped
  auto* gemmBatched = reinterpret_cast<int (*)(void*, int, int, int, int, int, const float*, const float* const*, int,
                                                const float* const*, int, const float*, float* const*, int, int)>(
      expect(cublas, "libcublas", "cublasSgemmBatched", true));
  expect(cublas, "libcublas", "cublasSgemm_v2", false);
  // Through the wrapper to cuFFT itself: a plan that does not exist is cuFFT's CUFFT_INVALID_PLAN
  // (1); a wrapper that found no definition would answer CUFFT_INTERNAL_ERROR (5).
  if (exec) {
    int r = exec(12345, nullptr, nullptr, -1);
    std::printf("%s: cufftExecC2C through the wrapper, no such plan -> %d (1 expected)\n", r == 1 ? "ok" : "FAIL", r);
    failures += r != 1;
  }
  // A batched cuBLAS wrapper asks the library for the handle's stream first, through an entry
  // point it does not wrap (before, that lookup threw std::out_of_range: found on the GPU). With
  // no handle, cuBLAS answers CUBLAS_STATUS_NOT_INITIALIZED (1), and so would a wrapper that
  // found no definition; this asks that the call returns at all.
  if (gemmBatched) {
    int r = gemmBatched(nullptr, 0, 0, 1, 1, 1, nullptr, nullptr, 1, nullptr, 1, nullptr, nullptr, 1, 0);
    std::printf("%s: cublasSgemmBatched through the wrapper, no handle -> %d (1 expected)\n", r == 1 ? "ok" : "FAIL", r);
    failures += r != 1;
  }
  // cuFFT unloaded and loaded again elsewhere (an address range taken in between): the wrapper
  // calls the new copy. Before, it kept the first copy's address and jumped into unmapped code
  // (a review's find).
  void* before = dlsym(cufft, "cufftPlan1d");
  dlclose(cufft);
  if (!dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD)) {
    mmap(nullptr, size_t(1) << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void* again = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void* after = again ? dlsym(again, "cufftPlan1d") : nullptr;
    std::printf("cuFFT loaded again %s\n", after == before ? "at the same address" : "elsewhere");
    auto* execAgain =
        reinterpret_cast<int (*)(int, void*, void*, int)>(expect(again, "libcufft", "cufftExecC2C", true));
    if (execAgain) {
      int r = execAgain(12345, nullptr, nullptr, -1);
      std::printf("%s: cufftExecC2C through the wrapper after the reload -> %d (1 expected)\n", r == 1 ? "ok" : "FAIL",
                  r);
      failures += r != 1;
    }
  } else {
    std::printf("cuFFT stayed loaded after dlclose: the reload is not tried\n");
  }
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
