// Host call stacks for the records of allocations and frees: raw return addresses, named only
// when a report prints them (Runtime::symbolize).
//
// Every cudaMalloc and cudaFree takes one, so the unwinder's speed is the allocation path's.
// glibc's backtrace() unwinds through libgcc, which parses every frame's unwind table anew (a
// 14-frame stack took 1.6 us on the build machine); libunwind's unw_backtrace keeps what it
// learned about each return address (0.12 us for the same stack once warm). libunwind is
// loaded at run time where it is installed (Debian's libunwind8), so that libcucatch needs
// nothing beyond glibc where it is not: both give the same frames.
#pragma once

#include <string>
#include <string_view>

namespace cucatch::runtime {

class Unwinder {
 public:
  // Takes the unwinder `choice` names (CUCATCH_UNWINDER): "auto" is libunwind where it loads
  // and glibc otherwise, "libunwind" libunwind or an error, "glibc" glibc's backtrace(). Returns
  // an empty text, or why the choice cannot be had.
  std::string select(std::string_view choice);
  // The return addresses of the calling thread's stack, innermost first, from the caller of
  // this function on: at most `max`, their number returned.
  int capture(void** frames, int max) const { return capture_(frames, max); }
  // "libunwind" or "glibc".
  std::string_view name() const { return libunwind_ ? "libunwind" : "glibc"; }

 private:
  int (*capture_)(void**, int) = nullptr;
  bool libunwind_ = false;
};

}  // namespace cucatch::runtime
