#include "runtime/Unwinder.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>

#include "runtime/LoaderCounts.h"

namespace cucatch::runtime {

std::string Unwinder::checkChoice(std::string_view choice) {
  if (choice == "auto" || choice == "libunwind" || choice == "glibc") return {};
  return "CUCATCH_UNWINDER=" + std::string(choice) + ": expected auto, libunwind or glibc";
}

const std::string& Unwinder::load() const {
  std::call_once(once_, [this] {
    capture_ = &::backtrace;
    if (error_ = checkChoice(choice_); !error_.empty()) return;
    if (choice_ == "glibc") return;
    // RTLD_LOCAL: libunwind also defines backtrace and _Unwind_Backtrace, which must not replace
    // the program's own. (Never closed: its caches live as long as the process.)
    void* library = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* fn = library ? dlsym(library, "unw_backtrace") : nullptr;
    if (!fn) {
      if (choice_ == "libunwind") {
        const char* why = dlerror();
        error_ = "CUCATCH_UNWINDER=libunwind: " +
                 std::string(library ? "libunwind has no unw_backtrace" : why ? why : library_ + " not found") +
                 " (Debian and Ubuntu: the package libunwind8)";
      }
      return;
    }
    capture_ = reinterpret_cast<int (*)(void**, int)>(fn);
    // Its cache is keyed by return address: an object unloaded and another loaded at its
    // addresses would find the old one's frame layouts there.
    // (unw_flush_cache and unw_local_addr_space, under libunwind's x86-64 names.)
    void* space = dlsym(library, "_ULx86_64_local_addr_space");
    localSpace_ = space ? *static_cast<void**>(space) : nullptr;
    flushCache_ = reinterpret_cast<void (*)(void*, unsigned long, unsigned long)>(dlsym(library, "_Ux86_64_flush_cache"));
  });
  return error_;
}

int Unwinder::capture(void** frames, int max) const {
  load();
  if (flushCache_ && localSpace_) {
    static std::atomic<unsigned long long> seen{loaderCounts().subs};
    unsigned long long now = loaderCounts().subs;
    if (seen.exchange(now) != now) flushCache_(localSpace_, 0, 0);
  }
  return capture_(frames, max);
}

std::string_view Unwinder::name() const {
  load();
  return capture_ == &::backtrace ? "glibc" : "libunwind";
}

}  // namespace cucatch::runtime
