#include "runtime/Libraries.h"

#include <cublas_api.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cusolverDn.h>
#include <nvJitLink.h>
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <mutex>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "runtime/ElfSymbols.h"
#include "runtime/LoaderCounts.h"
#include "runtime/Runtime.h"

namespace cucatch::runtime {

void* libraryDefinition(const char* symbol) {
  Dl_info me{};
  dladdr(reinterpret_cast<void*>(&libraryDefinition), &me);
  // The loaded objects' names first: no loader calls inside dl_iterate_phdr (it holds a lock
  // the loader takes in the other order).
  std::vector<std::string> names;
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void* data) {
    if (info->dlpi_name && info->dlpi_name[0]) static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name);
    return 0;
  }, &names);
  for (const auto& name : names) {
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    void* p = dlsym(handle, symbol);
    dlclose(handle);
    Dl_info where{};
    if (p && dladdr(p, &where) && where.dli_fbase != me.dli_fbase) return p;
  }
  return nullptr;
}

namespace {

// The library's definition of one entry point, as the wrapper calls it: looked up again when
// the loader has loaded or unloaded an object since. A library unloaded and loaded again lies
// elsewhere (a review's find: the wrapper kept the first address and jumped into unmapped
// code), and one not loaded at the first call may be later. The lookup runs without the lock:
// it takes the loader's, which a constructor calling the wrapper holds.
class LibraryTarget {
 public:
  void* get(const char* name) {
    const LoaderCounts now = loaderCounts();
    {
      std::lock_guard lock(mutex_);
      if (known_ && now.adds == counts_.adds && now.subs == counts_.subs) return definition_;
    }
    void* definition = libraryDefinition(name);
    std::lock_guard lock(mutex_);
    known_ = true;
    counts_ = now;
    definition_ = definition;
    return definition;
  }

 private:
  std::mutex mutex_;
  bool known_ = false;
  LoaderCounts counts_;
  void* definition_ = nullptr;
};

// Entry points the wrappers call that cucatch does not wrap: a batched call's stream is its
// handle's.
constexpr char k_cublasGetStream_v2[] = "cublasGetStream_v2";
constexpr char k_cusolverDnGetStream[] = "cusolverDnGetStream";

// One per entry point a wrapper calls (each wrapped one and those above), made at first use and
// never added to after (lookups need no lock).
LibraryTarget& targetOf(const std::string& name) {
  static auto* targets = [] {
    auto* t = new std::unordered_map<std::string, LibraryTarget>;  // (never destroyed: used at exit)
    for (const auto& [entry, ours] : libraryDefinitions()) (*t)[entry];
    for (const char* called : {k_cublasGetStream_v2, k_cusolverDnGetStream}) (*t)[called];
    return t;
  }();
  return targets->at(name);
}

// Calls the library's own definition of `Name` with `a`, or fails as the library would.
template <const char* Name, class R, class... A>
R callLibrary(R failure, A... a) {
  static LibraryTarget& target = targetOf(Name);
  auto f = reinterpret_cast<R (*)(A...)>(target.get(Name));
  if (!f) {
    static std::once_flag said;
    std::call_once(said, [] { Runtime::get().log(fmt::format("{} called, but no loaded library defines it", Name)); });
  }
  return f ? f(a...) : failure;
}

template <class T>
T* strip(T* p) {
  return static_cast<T*>(Runtime::stripHost(p));
}

// The libraries' names, for looking up their definitions.
constexpr char k_cufftExecC2C[] = "cufftExecC2C";
constexpr char k_cufftExecZ2Z[] = "cufftExecZ2Z";
constexpr char k_cufftExecR2C[] = "cufftExecR2C";
constexpr char k_cufftExecC2R[] = "cufftExecC2R";
constexpr char k_cufftExecD2Z[] = "cufftExecD2Z";
constexpr char k_cufftExecZ2D[] = "cufftExecZ2D";
constexpr char k_cufftXtExec[] = "cufftXtExec";
constexpr char k_cufftSetWorkArea[] = "cufftSetWorkArea";
// nvJitLink.h's entry points are inline functions calling these versioned symbols.
constexpr char k_nvJitLinkAddData[] = "__nvJitLinkAddData_13_0";
constexpr char k_nvJitLinkAddFile[] = "__nvJitLinkAddFile_13_0";

#define CUCATCH_POINTER_ARRAY_API(library, name, parameters, arguments, count) constexpr char k_##name[] = #name;
#include "runtime/pointer_arrays.inc"
#undef CUCATCH_POINTER_ARRAY_API

// The stream a handle's work goes to, asked of the library.
CUstream streamOf(cublasHandle_t handle) {
  cudaStream_t s = nullptr;
  callLibrary<k_cublasGetStream_v2>(CUBLAS_STATUS_NOT_INITIALIZED, handle, &s);
  return reinterpret_cast<CUstream>(s);
}
CUstream streamOf(cusolverDnHandle_t handle) {
  cudaStream_t s = nullptr;
  callLibrary<k_cusolverDnGetStream>(CUSOLVER_STATUS_NOT_INITIALIZED, handle, &s);
  return reinterpret_cast<CUstream>(s);
}

// How many pointers each array of a grouped batched call holds: the sum of the group sizes.
template <class Int>
int64_t groupedCount(Int groups, const Int* sizes) {
  int64_t n = 0;
  for (Int g = 0; sizes && g < groups; ++g) n += sizes[g];
  return n;
}

// The untagged copies of one call's pointer arrays, freed in the call's stream when it returns
// (after the library has enqueued the work that reads them).
class PointerArrays {
 public:
  explicit PointerArrays(CUstream stream) : stream_(stream) {}
  ~PointerArrays() {
    for (CUdeviceptr copy : copies_) Runtime::get().releasePointerArray(copy, stream_);
  }
  PointerArrays(const PointerArrays&) = delete;
  PointerArrays& operator=(const PointerArrays&) = delete;

  template <class T>
  T* operator()(T* array, int64_t count) {
    CUdeviceptr copy = Runtime::get().untaggedPointerArray(array, count, stream_);
    if (!copy) return array;
    copies_.push_back(copy);
    return reinterpret_cast<T*>(copy);
  }

 private:
  CUstream stream_;
  std::vector<CUdeviceptr> copies_;
};

constexpr cublasStatus_t cublasFailure = CUBLAS_STATUS_NOT_INITIALIZED;
constexpr cusolverStatus_t cusolverFailure = CUSOLVER_STATUS_NOT_INITIALIZED;

}  // namespace

extern "C" {

#define CUCATCH_LIBRARY_API __attribute__((visibility("default")))

// Batched cuBLAS and cuSOLVER calls (gen-pointer-arrays.py): their kernels read the matrices'
// addresses from arrays in device memory.
#define CUCATCH_UNPARENTHESIZE(...) __VA_ARGS__
#define CUCATCH_POINTER_ARRAY_API(library, name, parameters, arguments, countExpression) \
  CUCATCH_LIBRARY_API library##Status_t name parameters {                                \
    PointerArrays arrays(streamOf(handle));                                               \
    const int64_t count = countExpression;                                                \
    return callLibrary<k_##name>(library##Failure, CUCATCH_UNPARENTHESIZE arguments);     \
  }
#include "runtime/pointer_arrays.inc"
#undef CUCATCH_POINTER_ARRAY_API

CUCATCH_LIBRARY_API cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* in, cufftComplex* out, int direction) {
  return callLibrary<k_cufftExecC2C>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out), direction);
}
CUCATCH_LIBRARY_API cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out,
                                             int direction) {
  return callLibrary<k_cufftExecZ2Z>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out), direction);
}
CUCATCH_LIBRARY_API cufftResult cufftExecR2C(cufftHandle plan, cufftReal* in, cufftComplex* out) {
  return callLibrary<k_cufftExecR2C>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out));
}
CUCATCH_LIBRARY_API cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* in, cufftReal* out) {
  return callLibrary<k_cufftExecC2R>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out));
}
CUCATCH_LIBRARY_API cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* in, cufftDoubleComplex* out) {
  return callLibrary<k_cufftExecD2Z>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out));
}
CUCATCH_LIBRARY_API cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleReal* out) {
  return callLibrary<k_cufftExecZ2D>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out));
}
CUCATCH_LIBRARY_API cufftResult cufftXtExec(cufftHandle plan, void* in, void* out, int direction) {
  return callLibrary<k_cufftXtExec>(CUFFT_INTERNAL_ERROR, plan, strip(in), strip(out), direction);
}
CUCATCH_LIBRARY_API cufftResult cufftSetWorkArea(cufftHandle plan, void* area) {
  return callLibrary<k_cufftSetWorkArea>(CUFFT_INTERNAL_ERROR, plan, strip(area));
}

// nvJitLink: PTX added to a link is instrumented (in JIT mode, a fatbinary's PTX too), as for
// cuLinkAddData (JitLoader.h).
CUCATCH_LIBRARY_API nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle handle, nvJitLinkInputType type,
                                                            const void* data, size_t size, const char* name) {
  if (type == NVJITLINK_INPUT_PTX || type == NVJITLINK_INPUT_FATBIN)
    if (const char* ptx = Runtime::get().linkInputToLoad(data, size, type == NVJITLINK_INPUT_PTX, name))
      return callLibrary<k_nvJitLinkAddData>(NVJITLINK_ERROR_INTERNAL, handle, NVJITLINK_INPUT_PTX,
                                             static_cast<const void*>(ptx), std::strlen(ptx) + 1, name);
  return callLibrary<k_nvJitLinkAddData>(NVJITLINK_ERROR_INTERNAL, handle, type, data, size, name);
}
CUCATCH_LIBRARY_API nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle handle, nvJitLinkInputType type,
                                                            const char* path) {
  if (type == NVJITLINK_INPUT_PTX || type == NVJITLINK_INPUT_FATBIN)
    if (const char* ptx = Runtime::get().linkFileToLoad(path, type == NVJITLINK_INPUT_PTX))
      return callLibrary<k_nvJitLinkAddData>(NVJITLINK_ERROR_INTERNAL, handle, NVJITLINK_INPUT_PTX,
                                             static_cast<const void*>(ptx), std::strlen(ptx) + 1, path);
  return callLibrary<k_nvJitLinkAddFile>(NVJITLINK_ERROR_INTERNAL, handle, type, path);
}

}  // extern "C"

void* libraryTarget(const char* symbol) {
  return libraryDefinitions().count(symbol) ? targetOf(symbol).get(symbol) : nullptr;
}

const std::unordered_map<std::string, void*>& libraryDefinitions() {
  static const std::unordered_map<std::string, void*> table{
      {"cufftExecC2C", reinterpret_cast<void*>(&cufftExecC2C)}, {"cufftExecZ2Z", reinterpret_cast<void*>(&cufftExecZ2Z)},
      {"cufftExecR2C", reinterpret_cast<void*>(&cufftExecR2C)}, {"cufftExecC2R", reinterpret_cast<void*>(&cufftExecC2R)},
      {"cufftExecD2Z", reinterpret_cast<void*>(&cufftExecD2Z)}, {"cufftExecZ2D", reinterpret_cast<void*>(&cufftExecZ2D)},
      {"cufftXtExec", reinterpret_cast<void*>(&cufftXtExec)},
      {"cufftSetWorkArea", reinterpret_cast<void*>(&cufftSetWorkArea)},
      {"__nvJitLinkAddData_13_0", reinterpret_cast<void*>(&__nvJitLinkAddData_13_0)},
      {"__nvJitLinkAddFile_13_0", reinterpret_cast<void*>(&__nvJitLinkAddFile_13_0)},
#define CUCATCH_POINTER_ARRAY_API(library, name, parameters, arguments, count) {#name, reinterpret_cast<void*>(&name)},
#include "runtime/pointer_arrays.inc"
#undef CUCATCH_POINTER_ARRAY_API
  };
  return table;
}

std::string staticallyLinkedLibrary(const ElfSymbols& program) {
  // cuFFT only: a static cuBLAS or cuSOLVER works with tags but for its batched calls, where
  // the runtime's hint says what to do; turning tags off for every such program would cost
  // checking where nothing goes wrong.
  std::vector<std::string> names;
  for (const auto& [name, ours] : libraryDefinitions())
    if (name.rfind("cufft", 0) == 0) names.push_back(name);
  std::sort(names.begin(), names.end());  // (the message names the same one every time)
  for (const auto& name : names)
    if (program.defines(name)) return name;
  return {};
}

}  // namespace cucatch::runtime
