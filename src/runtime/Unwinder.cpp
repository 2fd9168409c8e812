#include "runtime/Unwinder.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <atomic>

namespace cucatch::runtime {

namespace {

// How many objects the loader has unloaded (dl_iterate_phdr's dlpi_subs).
unsigned long long unloads() {
  unsigned long long subs = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* out) {
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
          *static_cast<unsigned long long*>(out) = info->dlpi_subs;
        return 1;
      },
      &subs);
  return subs;
}

// libunwind's cache of the local address space, and the function that drops it
// (unw_flush_cache, under libunwind's x86-64 names).
void* gLocalSpace = nullptr;
void (*gFlushCache)(void*, unsigned long, unsigned long) = nullptr;
void flushLibunwind() {
  if (gFlushCache && gLocalSpace) gFlushCache(*static_cast<void**>(gLocalSpace), 0, 0);
}

}  // namespace

const std::string& Unwinder::load() const {
  std::call_once(once_, [this] {
    capture_ = &::backtrace;
    if (choice_ != "auto" && choice_ != "libunwind" && choice_ != "glibc") {
      error_ = "CUCATCH_UNWINDER=" + choice_ + ": expected auto, libunwind or glibc";
      return;
    }
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
    gLocalSpace = dlsym(library, "_ULx86_64_local_addr_space");
    gFlushCache = reinterpret_cast<void (*)(void*, unsigned long, unsigned long)>(dlsym(library, "_Ux86_64_flush_cache"));
    flush_ = &flushLibunwind;
  });
  return error_;
}

int Unwinder::capture(void** frames, int max) const {
  load();
  if (flush_) {
    static std::atomic<unsigned long long> seen{unloads()};
    unsigned long long now = unloads();
    if (seen.exchange(now) != now) flush_();
  }
  return capture_(frames, max);
}

std::string_view Unwinder::name() const {
  load();
  return capture_ == &::backtrace ? "glibc" : "libunwind";
}

}  // namespace cucatch::runtime
