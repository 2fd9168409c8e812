// Host call stacks for the records of allocations and frees: raw return addresses, named only
// when a report prints them (Runtime::symbolize).
//
// Every cudaMalloc and cudaFree takes one, so the unwinder's speed is the allocation path's.
// glibc's backtrace() unwinds through libgcc, which parses every frame's unwind table anew (a
// 14-frame stack took 1.6 us on the build machine); libunwind's unw_backtrace keeps what it
// learned about each return address (0.12 us for the same stack once warm). libunwind is
// loaded at run time where it is installed (Debian's libunwind8), so that libcucatch needs
// nothing beyond glibc where it is not: both give the same frames.
//
// Loaded at the first capture, not when the runtime starts: the runtime may be first reached
// on a thread other than the one loading libcucatch, and a dlopen there would wait for the
// loader's lock that thread holds while it waits for the runtime.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace cucatch::runtime {

class Unwinder {
 public:
  // The unwinder `choice` names (CUCATCH_UNWINDER, checked by Options): "auto" is libunwind
  // where `library` loads and glibc otherwise, "libunwind" libunwind or an error, "glibc"
  // glibc's backtrace(). Nothing is loaded yet.
  explicit Unwinder(std::string choice = "auto", std::string library = "libunwind.so.8")
      : choice_(std::move(choice)), library_(std::move(library)) {}
  // "" where `choice` is one of the three, else the error (CUCATCH_UNWINDER's, for Options too).
  static std::string checkChoice(std::string_view choice);
  // Loads what the choice names, once; an empty text, or why it cannot be had (libunwind asked
  // for and not found, or an unknown choice: glibc's is used then).
  const std::string& load() const;
  // The return addresses of the calling thread's stack, innermost first, from the caller of
  // this function on: at most `max`, their number returned.
  int capture(void** frames, int max) const;
  // "libunwind" or "glibc" (loads first).
  std::string_view name() const;

 private:
  std::string choice_, library_;
  mutable std::once_flag once_;
  mutable std::string error_;
  mutable int (*capture_)(void**, int) = nullptr;
  // libunwind's unw_flush_cache and its local address space (none with glibc's unwinder): its
  // cache is dropped when an object was unloaded.
  mutable void (*flushCache_)(void*, unsigned long, unsigned long) = nullptr;
  mutable void* localSpace_ = nullptr;
};

}  // namespace cucatch::runtime
