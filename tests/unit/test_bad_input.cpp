// Bad input gets a diagnostic with file:line:col and never a crash, a hang or a silently
// wrong module.
#include <catch2/catch.hpp>

#include <random>

#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "frontend_properties.h"
#include "ptx_samples.h"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cucatch::ptx;

namespace {
const Diagnostic& firstError(const ParseResult& r) {
  REQUIRE_FALSE(r.ok());
  REQUIRE_FALSE(r.errors.empty());
  return r.errors.front();
}
}  // namespace

TEST_CASE("syntax errors carry file, line and column", "[bad-input]") {
  auto r = parseModule(".version 8.0\n.target sm_80\n.entry k()\n{\n\tld.global.u32 %r1 [%rd1];\n}\n", "bad.ptx");
  const Diagnostic& d = firstError(r);
  CHECK(d.file == "bad.ptx");
  CHECK(d.line == 5);
  CHECK(d.column == 20);
  CHECK_THAT(d.str(), Catch::StartsWith("bad.ptx:5:20: error: "));
}

TEST_CASE("unexpected characters are named", "[bad-input]") {
  auto r = parseModule(".version 8.0\n.target sm_80\n#include <x>\n", "hash.ptx");
  const Diagnostic& d = firstError(r);
  CHECK(d.line == 3);
  CHECK(d.column == 1);
  CHECK(d.message == "unexpected character '#'");
}

TEST_CASE("out-of-range integers are refused, not wrapped", "[bad-input]") {
  auto r = parseModule(".version 8.0\n.target sm_80\n.address_size 99999999999999999999999\n", "big.ptx");
  CHECK(firstError(r).line == 3);
  auto r2 = parseModule(".version 8.0\n.entry k()\n{\n.reg .b32 %r<5000000000>;\n}\n", "range.ptx");
  CHECK(firstError(r2).line == 4);
}

TEST_CASE("an unterminated block comment or string is an error", "[bad-input]") {
  CHECK_FALSE(parseModule(".version 8.0\n/* never closed\n", "c.ptx").ok());
  CHECK_FALSE(parseModule(".version 8.0\n.file 1 \"no end\n", "s.ptx").ok());
}

TEST_CASE("deep nesting is refused with a diagnostic instead of overflowing the stack", "[bad-input]") {
  std::string deep = ".version 8.0\n.global .u32 x = " + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + ";\n";
  auto r = parseModule(deep, "deep.ptx");
  CHECK_THAT(firstError(r).message, Catch::Contains("nested deeper"));
  std::string unary = ".version 8.0\n.global .u32 x = " + std::string(100000, '-') + "1;\n";
  CHECK_THAT(firstError(parseModule(unary, "unary.ptx")).message, Catch::Contains("nested deeper"));
}

TEST_CASE("every truncation of a valid module parses or fails cleanly", "[bad-input]") {
  std::string full = cucatch::test::kEverythingPtx;
  size_t parsed = 0;
  for (size_t n = 0; n <= full.size(); n += 7) {
    auto r = parseModule(std::string_view(full).substr(0, n), "trunc.ptx");
    if (r.ok()) {
      ++parsed;
      // Whatever parses must print and re-parse to the same IR.
      auto again = parseModule(print(*r.module), "again.ptx");
      REQUIRE(again.ok());
      CHECK(*again.module == *r.module);
    } else {
      for (const auto& d : r.errors) {
        CHECK(d.line >= 1);
        CHECK(d.line <= 200);
        CHECK_FALSE(d.message.empty());
      }
    }
  }
  CHECK(parsed > 0);
}

TEST_CASE("random garbage and mutated modules never crash the parser", "[bad-input]") {
  std::mt19937 rng(12345);
  std::string base = cucatch::test::kEverythingPtx;
  for (int i = 0; i < 300; ++i) {
    std::string s = base;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[pos] = static_cast<char>(rng() % 256); break;
        case 1: s.erase(pos, 1 + rng() % 20); break;
        default: s.insert(pos, 1, "{}[]();,.%@!|+-0x\"/*\n"[rng() % 21]); break;
      }
    }
    auto violated = cucatch::test::checkFrontEndProperties(s);
    INFO("mutant " << i);
    CHECK_FALSE(violated.has_value());
  }
  std::string noise(4096, '\0');
  for (auto& c : noise) c = static_cast<char>(rng() % 256);
  CHECK_FALSE(parseModule(noise, "noise.ptx").ok());
}

TEST_CASE("empty and comment-only inputs are empty modules", "[bad-input]") {
  auto r = parseModule("", "empty.ptx");
  REQUIRE(r.ok());
  CHECK(r.module->items.empty());
  auto c = parseModule("// nothing here\n/* at all */\n", "comments.ptx");
  REQUIRE(c.ok());
  CHECK(c.module->items.empty());
}

TEST_CASE("inputs the fuzzer once broke keep their properties", "[bad-input]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(CUCATCH_SOURCE_DIR) / "tests/fuzz/regressions";
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    INFO(entry.path().filename().string());
    auto violated = cucatch::test::checkFrontEndProperties(ss.str());
    CHECK(violated.value_or("none") == "none");
    ++n;
  }
  CHECK(n > 0);
}

// ---- PTX older than the inserted code can be assembled with: refused with the reason, so that a
// program that loads such PTX at run time gets its module as it is (JitLoader), never a module
// the driver cannot compile.
#include "instrument/Instrument.h"

TEST_CASE("PTX the instrumentation cannot be assembled with is refused, saying why", "[bad-input]") {
  auto refusal = [](const std::string& text) -> std::string {
    auto parsed = cucatch::ptx::parseModule(text, "old.ptx");
    REQUIRE(parsed.ok());
    try {
      cucatch::instrument::instrumentModule(*parsed.module);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  };
  const std::string body = ".entry k (.param .u64 p)\n{\n.reg .u64 %rd<3>;\n.reg .f32 %f<2>;\nld.param.u64 %rd1, [p];\n"
                           "ld.global.f32 %f1, [%rd1];\nst.global.f32 [%rd1], %f1;\nexit;\n}\n";
  CHECK(refusal(".version 1.4\n.target sm_10, map_f64_to_f32\n" + body) ==
        "PTX ISA 1.4 is older than cucatch instruments (3.1 and later)");
  CHECK(refusal(".version 3.1\n.target sm_20\n.address_size 32\n" + body) ==
        "32-bit addresses: cucatch instruments 64-bit code only");
  CHECK(refusal(".version 3.1\n.target sm_13\n.address_size 64\n" + body) ==
        ".target sm_13 is older than cucatch instruments (sm_20 and later)");
  CHECK(refusal(".version 3.1\n.target sm_30\n.address_size 64\n" + body).empty());
  // Each names the directive's line, for file:line:col (cucatch-ptx).
  auto line = [](const std::string& text) -> uint32_t {
    auto parsed = cucatch::ptx::parseModule(text, "old.ptx");
    REQUIRE(parsed.ok());
    try {
      cucatch::instrument::instrumentModule(*parsed.module);
    } catch (const cucatch::ptx::InputError& e) {
      return e.loc.line;
    }
    return 0;
  };
  CHECK(line("// old\n.version 1.4\n.target sm_10, map_f64_to_f32\n" + body) == 2);
  CHECK(line(".version 3.1\n.target sm_20\n\n.address_size 32\n" + body) == 4);
  CHECK(line(".version 3.1\n.target sm_13\n.address_size 64\n" + body) == 2);
}
