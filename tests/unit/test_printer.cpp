#include <catch2/catch.hpp>

#include <sstream>

#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "ptx_samples.h"

using namespace cucatch::ptx;

namespace {
Module parseOk(std::string_view text) {
  auto r = parseModule(text, "test.ptx");
  if (!r.ok())
    for (const auto& d : r.errors) FAIL(d.str());
  REQUIRE(r.ok());
  return std::move(*r.module);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("print then parse gives the same IR", "[printer]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  std::string printed = print(m);
  Module again = parseOk(printed);
  CHECK(again == m);
  CHECK(print(again) == printed);
}

TEST_CASE("every statement stays on its source line", "[printer]") {
  // ptxas writes PTX line numbers into the cubin's line table, so an unmodified module must
  // print with the same line for every statement: compare statement by statement.
  std::string original = cucatch::test::kEverythingPtx;
  std::string printed = print(parseOk(original));
  auto a = lines(original), b = lines(printed);
  auto strip = [](std::string s) {
    if (auto c = s.find("//"); c != std::string::npos) s.erase(c);
    std::string t;
    for (char ch : s)
      if (ch != ' ' && ch != '\t') t += ch;
    return t;
  };
  REQUIRE(b.size() <= a.size());
  for (size_t i = 0; i < b.size(); ++i) {
    INFO("line " << i + 1 << ": '" << a[i] << "' vs '" << b[i] << "'");
    // Same tokens on the same line; the printer drops comments and may drop a "+0"-free
    // spelling difference, so compare with whitespace and comments removed.
    CHECK(strip(a[i]) == strip(b[i]));
  }
}

TEST_CASE("explicit +0 offsets are kept (ptxas -O0 code depends on them)", "[printer]") {
  Module m = parseOk(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n"
                     ".reg .b64 %SP;\n.reg .b32 %r1;\nst.u32 [%SP+0], %r1;\nst.u32 [%SP], %r1;\n}\n");
  std::string printed = print(m);
  CHECK(printed.find("[%SP+0]") != std::string::npos);
  CHECK(printed.find("[%SP]") != std::string::npos);
}

TEST_CASE("synthetic statements go on lines of their own", "[printer]") {
  Module m = parseOk(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n"
                     ".reg .b32 %r<3>;\nmov.u32 %r1, 1;\nmov.u32 %r2, 2;\n}\n");
  Function& f = *m.functions().at(0);
  Instruction added;
  added.opcode = "add";
  added.modifiers = {".u32"};
  added.operands = {Operand::name("%r1"), Operand::name("%r1"), Operand::integer(7)};
  f.body.insert(f.body.begin() + 2, added);  // between the two movs
  std::string printed = print(m);
  auto l = lines(printed);
  // The original statements keep their lines where possible; the new one gets its own.
  CHECK(l.at(6) == "\tmov.u32 %r1, 1;");
  CHECK(l.at(7) == "\tadd.u32 %r1, %r1, 7;");
  CHECK(l.at(8) == "\tmov.u32 %r2, 2;");
  CHECK(parseOk(printed).functions().at(0)->body.size() == 4);
}

TEST_CASE("printStatement and printOperand give one-line text", "[printer]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  const Function* k = nullptr;
  for (const Function* f : m.functions())
    if (f->name == "kernel") k = f;
  REQUIRE(k);
  std::string call;
  for (const auto& s : k->body)
    if (auto* in = std::get_if<Instruction>(&s); in && in->opcode == "call") {
      call = printStatement(s);
      break;
    }
  CHECK(call == "call.uni (retval0), callee, (param0);");
  CHECK(printOperand(Operand::address("%rd1", -8)) == "[%rd1+-8]");
  CHECK(printOperand(Operand::address("", 256)) == "[256]");
}
