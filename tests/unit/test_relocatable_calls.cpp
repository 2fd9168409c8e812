// Which functions of relocatable code get an entry point that takes their pointers' bounds, and
// which calls go to it (instrument/RelocatableCalls).
#include <catch2/catch.hpp>

#include "instrument/RelocatableCalls.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

using namespace cucatch::instrument;

namespace {

struct Result {
  MetadataEntryPoints entryPoints;
  std::string text;  // the module after the change
};

// A module of `functions` and a kernel whose body is `kernelBody`, given entry points.
Result entryPointsOf(const std::string& functions, const std::string& kernelBody) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n" + functions +
                     "\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                     "ld.param.u64 %rd1, [p];\n" +
                     kernelBody + "\nret;\n}\n";
  auto parsed = cucatch::ptx::parseModule(text, "relocatable.ptx");
  REQUIRE(parsed.ok());
  UnitResult unit;
  Result r;
  r.entryPoints = addMetadataEntryPoints(*parsed.module, unit);
  r.text = cucatch::ptx::print(*parsed.module);
  return r;
}

std::string put(const std::string& linkage, const std::string& attributes = "") {
  return linkage + " .func put(.param .b64 put_p, .param .b32 put_i)" + attributes +
         "\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [put_p];\n"
         "ld.param.u32 %r1, [put_i];\nst.u32 [%rd1], %r1;\nret;\n}\n";
}

const char* kCallPut = "{\n.param .b64 a0;\nst.param.b64 [a0+0], %rd1;\n.param .b32 a1;\nst.param.b32 [a1+0], 1;\n"
                       "call.uni put, (a0, a1);\n}";

}  // namespace

TEST_CASE("entry points: functions other units may call, and calls of other units' functions", "[relocatable]") {
  Result visible = entryPointsOf(put(".visible"), kCallPut);
  CHECK(visible.entryPoints.names == std::set<std::string>{"put__cc_meta"});
  CHECK(visible.text.find("call.uni put__cc_meta, (a0, a1);") != std::string::npos);
  CHECK(visible.text.find(".visible .func put(") != std::string::npos);  // the forwarder
  CHECK(visible.text.find("call put__cc_meta, (fwd_param0, fwd_param1);") != std::string::npos);
  // Not a .weak function (a template instance, an inline function): nvlink keeps one of several
  // units' definitions for every caller, and a forwarder under its name would stand for the
  // body's registers (RelocatableCalls.h).
  Result weak = entryPointsOf(put(".weak"), kCallPut);
  CHECK(weak.entryPoints.names.empty());
  CHECK(weak.text.find("__cc_meta") == std::string::npos);
  CHECK(weak.text.find("call.uni put, (a0, a1);") != std::string::npos);
  // Declared before its definition (and called in between): the entry point is declared there too.
  Result declared = entryPointsOf(".visible .func put(.param .b64 put_p, .param .b32 put_i);\n",
                                  std::string(kCallPut) + "\nret;\n}\n" + put(".visible") +
                                      "\n.visible .entry k2()\n{\n");
  CHECK(declared.entryPoints.names == std::set<std::string>{"put__cc_meta"});
  size_t declaration = declared.text.find(".visible .func put__cc_meta(.param .b64 put_p, .param .b32 put_i);");
  size_t call = declared.text.find("call.uni put__cc_meta, (a0, a1);");
  CHECK(declaration != std::string::npos);
  CHECK(declaration < call);
  // Another unit's function: a .weak forwarder where it is called.
  Result external = entryPointsOf(".extern .func put(.param .b64 put_p, .param .b32 put_i);\n", kCallPut);
  CHECK(external.entryPoints.names == std::set<std::string>{"put__cc_meta"});
  CHECK(external.text.find(".weak .func put__cc_meta(") != std::string::npos);
  CHECK(external.text.find("call put, (fwd_param0, fwd_param1);") != std::string::npos);
  // ... and nothing where it is only declared.
  CHECK(entryPointsOf(".extern .func put(.param .b64 put_p, .param .b32 put_i);\n", "").entryPoints.names.empty());
}

TEST_CASE("entry points: left alone", "[relocatable]") {
  // No linkage: MetadataParams passes the bounds without an entry point.
  CHECK(entryPointsOf(put(""), kCallPut).entryPoints.names.empty());
  // Attributes a forwarder would have to reproduce.
  CHECK(entryPointsOf(put(".visible", " .noreturn"), kCallPut).entryPoints.names.empty());
  // No 64-bit parameter: nothing to pass.
  CHECK(entryPointsOf(".visible .func f(.param .b32 f_i)\n{\nret;\n}\n", "").entryPoints.names.empty());
  // The CUDA system's functions and the device heap.
  CHECK(entryPointsOf(".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                      ".extern .func (.param .b64 r) malloc(.param .b64 n);\n",
                      "{\n.param .b64 a0;\nst.param.b64 [a0+0], 8;\n.param .b64 r0;\n"
                      "call.uni (r0), malloc, (a0);\n}")
            .entryPoints.names.empty());
  // A declaration whose signature differs from the definition's.
  CHECK(entryPointsOf(".visible .func put(.param .b64 put_p);\n" + put(".visible"), "").entryPoints.names.empty());
  // The entry point's name taken already.
  CHECK(entryPointsOf(put(".visible") + ".func put__cc_meta()\n{\nret;\n}\n", kCallPut).entryPoints.names.empty());
  // A call whose pointer argument is not stored by one st.param keeps calling the function
  // itself (its forwarder), which looks the pointer up.
  Result irregular = entryPointsOf(put(".visible"), "{\n.param .b64 a0;\n.param .b32 a1;\ncall.uni put, (a0, a1);\n}");
  CHECK(irregular.text.find("call.uni put, (a0, a1);") != std::string::npos);
}
