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
  // A .visible function: its body is private (this unit's calls reach it), F and its entry point
  // for other instrumented units forward to it.
  Result visible = entryPointsOf(put(".visible"), kCallPut);
  CHECK(visible.entryPoints.names == std::set<std::string>{"put__cc_meta"});
  CHECK(visible.text.find("call.uni put__cc_body, (a0, a1);") != std::string::npos);
  CHECK(visible.text.find("\n.func put__cc_body(.param .b64 put_p, .param .b32 put_i) {") != std::string::npos);
  CHECK(visible.text.find(".visible .func put(") != std::string::npos);  // the forwarders
  CHECK(visible.text.find(".visible .func put__cc_meta(") != std::string::npos);
  CHECK(visible.text.find("call put__cc_body, (fwd_param0, fwd_param1);") != std::string::npos);
  CHECK(visible.text.find("call.uni put__cc_meta") == std::string::npos);
  // A .weak function (a template instance, an inline function): kept as it is for other units,
  // whose definitions nvlink chooses among (RelocatableCalls.h), and copied for this unit's calls.
  Result weak = entryPointsOf(put(".weak"), kCallPut);
  CHECK(weak.entryPoints.names.empty());
  CHECK(weak.text.find("__cc_meta") == std::string::npos);
  CHECK(weak.text.find(".weak .func put(.param .b64 put_p, .param .b32 put_i) {") != std::string::npos);
  CHECK(weak.text.find("\n.func put__cc_body(.param .b64 put_p, .param .b32 put_i) {") != std::string::npos);
  CHECK(weak.text.find("call.uni put__cc_body, (a0, a1);") != std::string::npos);
  // A .weak function the unit does not call (a virtual function, only in a vtable; only other
  // units call it): no copy, which no call would reach.
  Result uncalled = entryPointsOf(put(".weak"), "mov.u64 %rd2, put;");
  CHECK(uncalled.text.find("put__cc_body") == std::string::npos);
  CHECK(uncalled.text.find(".weak .func put(.param .b64 put_p, .param .b32 put_i)") != std::string::npos);
  // Declared before its definition (and called in between): the private body is declared before
  // the first declaration.
  Result declared = entryPointsOf(".visible .func put(.param .b64 put_p, .param .b32 put_i);\n",
                                  std::string(kCallPut) + "\nret;\n}\n" + put(".visible") +
                                      "\n.visible .entry k2()\n{\n");
  CHECK(declared.entryPoints.names == std::set<std::string>{"put__cc_meta"});
  size_t declaration = declared.text.find("\n.func put__cc_body(.param .b64 put_p, .param .b32 put_i);");
  size_t call = declared.text.find("call.uni put__cc_body, (a0, a1);");
  CHECK(declaration != std::string::npos);
  CHECK(declaration < call);
  // A recursive .weak function calls its copy, declared before it.
  Result recursive = entryPointsOf(".weak .func r(.param .b64 r_p)\n{\n{\n.param .b64 a0;\nst.param.b64 [a0+0], 0;\n"
                                   "call.uni r, (a0);\n}\nret;\n}\n",
                                   "");
  CHECK(recursive.text.find("\n.func r__cc_body(.param .b64 r_p);") < recursive.text.find(".weak .func r("));
  CHECK(recursive.text.find("call.uni r, (a0);") == std::string::npos);
  // Another unit's function: a .weak forwarder where it is called.
  Result external = entryPointsOf(".extern .func put(.param .b64 put_p, .param .b32 put_i);\n", kCallPut);
  CHECK(external.entryPoints.names == std::set<std::string>{"put__cc_meta"});
  CHECK(external.text.find(".weak .func put__cc_meta(") != std::string::npos);
  CHECK(external.text.find("call put, (fwd_param0, fwd_param1);") != std::string::npos);
  // ... and nothing where it is only declared.
  CHECK(entryPointsOf(".extern .func put(.param .b64 put_p, .param .b32 put_i);\n", "").entryPoints.names.empty());
  // No 64-bit parameter: a private body, but no entry point (nothing to pass).
  Result narrow = entryPointsOf(".visible .func f(.param .b32 f_i)\n{\nret;\n}\n",
                                "{\n.param .b32 a0;\nst.param.b32 [a0+0], 1;\ncall.uni f, (a0);\n}");
  CHECK(narrow.entryPoints.names.empty());
  CHECK(narrow.text.find("call.uni f__cc_body, (a0);") != std::string::npos);
}

TEST_CASE("entry points: left alone", "[relocatable]") {
  // No linkage: MetadataParams passes the bounds without an entry point.
  Result internal = entryPointsOf(put(""), kCallPut);
  CHECK(internal.entryPoints.names.empty());
  CHECK(internal.text.find("__cc_") == std::string::npos);
  // Attributes a forwarder would have to reproduce.
  Result attributes = entryPointsOf(put(".visible", " .noreturn"), kCallPut);
  CHECK(attributes.entryPoints.names.empty());
  CHECK(attributes.text.find("__cc_") == std::string::npos);
  // The CUDA system's functions and the device heap.
  CHECK(entryPointsOf(".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                      ".extern .func (.param .b64 r) malloc(.param .b64 n);\n",
                      "{\n.param .b64 a0;\nst.param.b64 [a0+0], 8;\n.param .b64 r0;\n"
                      "call.uni (r0), malloc, (a0);\n}")
            .text.find("__cc_") == std::string::npos);
  // A declaration whose signature differs from the definition's.
  CHECK(entryPointsOf(".visible .func put(.param .b64 put_p);\n" + put(".visible"), "").text.find("__cc_") ==
        std::string::npos);
  // The new names taken already.
  CHECK(entryPointsOf(put(".visible") + ".func put__cc_meta()\n{\nret;\n}\n", kCallPut).entryPoints.names.empty());
  CHECK(entryPointsOf(put(".weak") + ".func put__cc_body()\n{\nret;\n}\n", kCallPut).text.find("call.uni put, (a0, a1);") !=
        std::string::npos);
  // A call of another unit's function whose pointer argument is not stored by one st.param keeps
  // calling the function itself, which looks the pointer up; a call of this unit's function
  // reaches its private body, which MetadataParams passes bounds to as to the unit's others.
  Result irregular = entryPointsOf(".extern .func put(.param .b64 put_p, .param .b32 put_i);\n",
                                   "{\n.param .b64 a0;\n.param .b32 a1;\ncall.uni put, (a0, a1);\n}");
  CHECK(irregular.text.find("call.uni put, (a0, a1);") != std::string::npos);
  Result irregularOwn = entryPointsOf(put(".visible"), "{\n.param .b64 a0;\n.param .b32 a1;\ncall.uni put, (a0, a1);\n}");
  CHECK(irregularOwn.text.find("call.uni put__cc_body, (a0, a1);") != std::string::npos);
}
