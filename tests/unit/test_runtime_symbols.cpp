// Host backtraces name the executable's own functions from its .symtab (ElfSymbols), which
// dladdr cannot: this test binary exports none of them.
#include <catch2/catch.hpp>
#include <dlfcn.h>

#include "runtime/ElfSymbols.h"
#include "runtime/Unwinder.h"

using cucatch::runtime::ElfSymbols;

namespace {
__attribute__((noinline)) int functionOnlyInSymtab(int x) { return x * 3 + 1; }
}  // namespace

TEST_CASE("ElfSymbols names a function that dladdr cannot", "[runtime]") {
  auto* fn = reinterpret_cast<char*>(&functionOnlyInSymtab);
  REQUIRE(functionOnlyInSymtab(2) == 7);
  Dl_info info{};
  REQUIRE(dladdr(fn, &info));
  CHECK(info.dli_sname == nullptr);  // not exported: what this reader is for
  ElfSymbols symbols = ElfSymbols::load("/proc/self/exe");
  REQUIRE(symbols.size() > 0);
  uint64_t base = symbols.positionIndependent() ? reinterpret_cast<uint64_t>(info.dli_fbase) : 0;
  auto hit = symbols.find(reinterpret_cast<uint64_t>(fn) + 1 - base);
  REQUIRE(hit);
  CHECK(hit->name.find("functionOnlyInSymtab") != std::string::npos);
  CHECK(hit->offset == 1);
  CHECK_FALSE(symbols.find(0));  // below every function
}

// Stands in for a library entry point linked statically into the program (cufftExecC2C of a
// -lcufft_static build), which the runtime looks for by name in the program's .symtab.
extern "C" __attribute__((noinline, used)) int cucatchTestStaticEntryPoint(int x) { return x + 1; }

TEST_CASE("ElfSymbols tells whether the file defines a function by name", "[runtime]") {
  REQUIRE(cucatchTestStaticEntryPoint(1) == 2);
  ElfSymbols symbols = ElfSymbols::load("/proc/self/exe");
  CHECK(symbols.defines("cucatchTestStaticEntryPoint"));
  CHECK_FALSE(symbols.defines("cucatchTestStaticEntryPoin"));
  CHECK_FALSE(symbols.defines("cufftExecC2C"));  // this program does not link cuFFT
}

TEST_CASE("ElfSymbols: unreadable, non-ELF and stripped files give an empty table", "[runtime]") {
  CHECK(ElfSymbols::load("/nonexistent/file").size() == 0);
  CHECK(ElfSymbols::load(CUCATCH_SOURCE_DIR "/README.md").size() == 0);
  CHECK_FALSE(ElfSymbols::load("/nonexistent/file").find(0x1000));
}

namespace {
// One call site for every unwinder, so that their first frames are the same return address.
__attribute__((noinline)) int captureThrough(const cucatch::runtime::Unwinder& u, void** frames, int max) {
  int n = u.capture(frames, max);
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
  return n;
}
__attribute__((noinline)) int nested(const cucatch::runtime::Unwinder& u, void** frames, int max, int depth) {
  int n = depth ? nested(u, frames, max, depth - 1) : captureThrough(u, frames, max);
  asm volatile("" ::: "memory");
  return n;
}
}  // namespace

TEST_CASE("libunwind and glibc give an allocation the same host frames", "[runtime]") {
  using cucatch::runtime::Unwinder;
  Unwinder glibc("glibc"), libunwind("libunwind");
  REQUIRE(glibc.load().empty());
  CHECK(glibc.name() == "glibc");
  // scripts/install-deps.sh installs libunwind8, as a machine running cucatch should have it.
  REQUIRE(libunwind.load() == "");
  CHECK(libunwind.name() == "libunwind");
  void* a[64];
  void* b[64];
  int na = nested(glibc, a, 64, 6);
  int nb = nested(libunwind, b, 64, 6);
  // captureThrough (after Unwinder::capture's own frame, where it is not a tail call), seven
  // frames of nested, this test case (two calls: that frame differs), Catch2's below it.
  auto inside = [](void* frame, auto* fn, size_t bytes) {
    auto f = reinterpret_cast<uintptr_t>(frame), start = reinterpret_cast<uintptr_t>(fn);
    return f > start && f < start + bytes;
  };
  int k = inside(b[0], &captureThrough, 256) ? 0 : 1;
  REQUIRE(inside(b[k], &captureThrough, 256));
  for (int i = k + 1; i <= k + 7; ++i) CHECK(inside(b[i], &nested, 512));
  REQUIRE(na >= k + 12);
  REQUIRE(nb >= k + 12);
  for (int i = 0; i < k + 12; ++i)
    if (i != k + 8) CHECK(a[i] == b[i]);
  CHECK(a[k + 8] != b[k + 8]);
  // A depth cut short stops there.
  CHECK(libunwind.capture(b, 3) == 3);
}

TEST_CASE("the unwinder falls back to glibc only where asked to", "[runtime]") {
  using cucatch::runtime::Unwinder;
  Unwinder automatic("auto");
  REQUIRE(automatic.load().empty());
  CHECK(automatic.name() == "libunwind");  // installed here
  // Where libunwind is not installed: auto takes glibc's, an explicit libunwind is an error
  // (and glibc's frames are taken all the same).
  Unwinder missingAuto("auto", "libunwind-not-installed.so.8");
  CHECK(missingAuto.load().empty());
  CHECK(missingAuto.name() == "glibc");
  Unwinder missing("libunwind", "libunwind-not-installed.so.8");
  CHECK(missing.load().find("CUCATCH_UNWINDER=libunwind: ") == 0);
  CHECK(missing.load().find("libunwind8") != std::string::npos);
  CHECK(missing.name() == "glibc");
  void* frames[8];
  CHECK(missing.capture(frames, 8) > 2);
  CHECK(Unwinder("fast").load().find("expected auto, libunwind or glibc") != std::string::npos);
}
