// Host backtraces name the executable's own functions from its .symtab (ElfSymbols), which
// dladdr cannot: this test binary exports none of them.
#include <catch2/catch.hpp>
#include <dlfcn.h>

#include "runtime/ElfSymbols.h"

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
