#include "runtime/Unwinder.h"

#include <dlfcn.h>
#include <execinfo.h>

namespace cucatch::runtime {

namespace {

// libunwind's soname since 1.0; its unw_backtrace has backtrace()'s signature.
constexpr const char* kLibunwind = "libunwind.so.8";

}  // namespace

std::string Unwinder::select(std::string_view choice) {
  if (choice != "auto" && choice != "libunwind" && choice != "glibc")
    return "CUCATCH_UNWINDER=" + std::string(choice) + ": expected auto, libunwind or glibc";
  capture_ = &::backtrace;
  libunwind_ = false;
  if (choice == "glibc") return {};
  // RTLD_LOCAL: libunwind also defines backtrace and _Unwind_Backtrace, which must not replace
  // the program's own. (Never closed: its caches live as long as the process.)
  void* library = dlopen(kLibunwind, RTLD_NOW | RTLD_LOCAL);
  void* fn = library ? dlsym(library, "unw_backtrace") : nullptr;
  if (!fn) {
    if (choice == "auto") return {};
    const char* why = dlerror();
    return std::string("CUCATCH_UNWINDER=libunwind: ") +
           (library ? "libunwind has no unw_backtrace" : why ? why : "libunwind.so.8 not found") +
           " (Debian and Ubuntu: the package libunwind8)";
  }
  capture_ = reinterpret_cast<int (*)(void**, int)>(fn);
  libunwind_ = true;
  return {};
}

}  // namespace cucatch::runtime
