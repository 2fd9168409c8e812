// Which device functions take their pointer parameters' bounds from their callers
// (instrument/MetadataParams): only where every call is seen and can be rewritten.
#include <catch2/catch.hpp>

#include "analysis/PointerAnalysis.h"
#include "instrument/FrameTable.h"
#include "instrument/MetadataParams.h"
#include "ptx/Parser.h"

using namespace cucatch::instrument;

namespace {

// A module of `functions` and a kernel whose body is `kernelBody`.
cucatch::ptx::Module moduleOf(const std::string& functions, const std::string& kernelBody) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n" + functions +
                     "\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
                     "ld.param.u64 %rd1, [p];\n" +
                     kernelBody + "\nret;\n}\n";
  auto parsed = cucatch::ptx::parseModule(text, "params.ptx");
  REQUIRE(parsed.ok());
  return std::move(*parsed.module);
}

MetadataParams paramsOf(const std::string& functions, const std::string& kernelBody, bool wholeProgram = false) {
  cucatch::ptx::Module module = moduleOf(functions, kernelBody);
  return metadataParamsOf(module, cucatch::analysis::moduleSymbols(module), wholeProgram);
}

// put(pointer, index, value): stores the 64-bit value through the pointer, at the index.
std::string put(const std::string& linkage = "") {
  return linkage + ".func put(.param .b64 put_p, .param .b32 put_i, .param .b64 put_v)\n{\n.reg .b32 %r<2>;\n"
                   ".reg .b64 %rd<5>;\nld.param.u64 %rd1, [put_p];\nld.param.u32 %r1, [put_i];\n"
                   "ld.param.u64 %rd4, [put_v];\nmul.wide.s32 %rd2, %r1, 8;\nadd.s64 %rd3, %rd1, %rd2;\n"
                   "st.u64 [%rd3], %rd4;\nret;\n}\n";
}

const char* kCall = "{\n.param .b64 a0;\nst.param.b64 [a0+0], %rd1;\n.param .b32 a1;\nst.param.b32 [a1+0], 1;\n"
                    ".param .b64 a2;\nst.param.b64 [a2+0], 7;\ncall.uni put, (a0, a1, a2);\n}";

}  // namespace

TEST_CASE("metadata parameters: a pointer parameter of a function only this module calls", "[metadata-params]") {
  MetadataParams mp = paramsOf(put(), kCall);
  REQUIRE(mp.byFunction.count("put"));
  // The pointer; not the 64-bit value stored through it (no address is made from it).
  REQUIRE(mp.byFunction.at("put").size() == 1);
  CHECK(mp.byFunction.at("put")[0].position == 0);
  CHECK(mp.of("put", "put_p") == std::vector<std::string>{"put_p__cc_b", "put_p__cc_s", "put_p__cc_m"});
  CHECK(mp.of("put", "put_v").empty());
}

TEST_CASE("metadata parameters: none where a call may come from elsewhere", "[metadata-params]") {
  // Another unit may call a .visible function, unless the module is a whole program (-G makes
  // every device function .visible); a .weak one may be replaced.
  CHECK(paramsOf(put(".visible "), kCall).byFunction.empty());
  CHECK(paramsOf(put(".visible "), kCall, true).byFunction.count("put"));
  CHECK(paramsOf(put(".weak "), kCall, true).byFunction.empty());
  // Its address taken: an indirect call, a virtual table.
  CHECK(paramsOf(put(), std::string(kCall) + "\nmov.u64 %rd2, put;").byFunction.empty());
  CHECK(paramsOf(put() + ".global .align 8 .u64 table[1] = {put};\n", kCall).byFunction.empty());
  // Variadic: its last parameter, an unsized array, must stay last.
  CHECK(paramsOf(".func sum(.param .b64 sum_p, .param .align 8 .b8 sum_va[])\n{\n.reg .b64 %rd<2>;\n"
                 "ld.param.u64 %rd1, [sum_p];\nst.u32 [%rd1], 0;\nret;\n}\n",
                 "{\n.param .b64 a0;\nst.param.b64 [a0+0], %rd1;\n.param .align 8 .b8 a1[8];\ncall.uni sum, (a0, a1);\n}")
            .byFunction.empty());
  // A call whose pointer argument is not stored by one plain st.param.
  CHECK(paramsOf(put(), "{\n.param .b64 a0;\n.param .b32 a1;\n.param .b64 a2;\ncall.uni put, (a0, a1, a2);\n}")
            .byFunction.empty());
  CHECK(paramsOf(put(),
                 "{\n.param .b64 a0;\nst.param.b64 [a0+0], %rd1;\nst.param.b64 [a0+0], %rd1;\n.param .b32 a1;\n"
                 ".param .b64 a2;\ncall.uni put, (a0, a1, a2);\n}")
            .byFunction.empty());
}

namespace {

// An indirect call of `put` through %rd2 (a pointer to it), with `prototype` as its prototype's
// parameter list and `stores` storing its arguments.
std::string indirectCall(const std::string& prototype = "(.param .b64 _, .param .b32 _, .param .b64 _)",
                         const std::string& stores = "st.param.b64 [a0+0], %rd1;\nst.param.b32 [a1+0], 1;\n"
                                                     "st.param.b64 [a2+0], 7;\n") {
  return "mov.u64 %rd2, put;\n{\n.param .b64 a0;\n.param .b32 a1;\n.param .b64 a2;\n" + stores +
         "proto : .callprototype ()_ " + prototype + ";\ncall %rd2, (a0, a1, a2), proto;\n}";
}

}  // namespace

TEST_CASE("metadata parameters: functions reached through pointers, in a module compiled whole", "[metadata-params]") {
  // Every 64-bit scalar parameter, pointer or not, of the address-taken function and of the
  // indirect call's prototype: both sides follow one rule without knowing what the pointer holds.
  MetadataParams mp = paramsOf(put(), indirectCall() + "\n" + kCall, true);
  REQUIRE(mp.byFunction.count("put"));
  REQUIRE(mp.byFunction.at("put").size() == 2);
  CHECK(mp.byFunction.at("put")[0].position == 0);
  CHECK(mp.byFunction.at("put")[1].position == 2);
  CHECK(mp.of("put", "put_v") == std::vector<std::string>{"put_v__cc_b", "put_v__cc_s", "put_v__cc_m"});
  REQUIRE(mp.byPrototype.count({"k", "proto"}));
  REQUIRE(mp.byPrototype.at({"k", "proto"}).size() == 2);
  CHECK(mp.byPrototype.at({"k", "proto"})[0].position == 0);
  CHECK(mp.byPrototype.at({"k", "proto"})[1].position == 2);
  // A vtable's initializer takes the address as well as a mov does.
  MetadataParams table = paramsOf(put() + ".global .align 8 .u64 table[1] = {put};\n", kCall, true);
  CHECK(table.byFunction.at("put").size() == 2);
  // A kernel's address (a launch from the device) is not a call target and changes nothing.
  CHECK(paramsOf(put(), indirectCall() + "\nmov.u64 %rd3, k;", true).byFunction.count("put"));
}

TEST_CASE("metadata parameters: through pointers, all or nothing", "[metadata-params]") {
  auto none = [](const MetadataParams& mp) { return mp.byFunction.empty() && mp.byPrototype.empty(); };
  // Relocatable code: other units may hold pointers to the function, or call through pointers.
  CHECK(none(paramsOf(put(), indirectCall())));
  // An address-taken function without a body here.
  CHECK(none(paramsOf(".extern .func ext(.param .b64 ext_p);\n" + put(), indirectCall() + "\nmov.u64 %rd3, ext;", true)));
  // A variadic prototype: nothing can follow its last parameter.
  CHECK(none(paramsOf(put(), indirectCall("(.param .b64 _, .param .b32 _, .param .align 8 .b8 _[])"), true)));
  // An argument not stored by one plain st.param.
  CHECK(none(paramsOf(put(), indirectCall("(.param .b64 _, .param .b32 _, .param .b64 _)",
                                          "st.param.b32 [a1+0], 1;\nst.param.b64 [a2+0], 7;\n"),
                      true)));
  // A direct call of the address-taken function that cannot be given the arguments.
  CHECK(none(paramsOf(put(), indirectCall() + "\n{\n.param .b64 a0;\n.param .b32 a1;\n.param .b64 a2;\n"
                                              "call.uni put, (a0, a1, a2);\n}",
                      true)));
}

TEST_CASE("the frame table: which functions take it, and where a module keeps none", "[frame-table]") {
  auto tableOf = [](const std::string& functions, const std::string& kernelBody, bool wholeProgram = false) {
    return frameTableOf(moduleOf(functions, kernelBody), wholeProgram);
  };
  // As for metadata parameters: every call is seen and can take one more argument.
  FrameTable plain = tableOf(put(), kCall);
  CHECK(plain.off.empty());
  CHECK(plain.mayTake("put"));
  CHECK_FALSE(plain.mayTake("k"));  // (a kernel makes its own)
  CHECK_FALSE(tableOf(put(".visible "), kCall).mayTake("put"));
  CHECK(tableOf(put(".visible "), kCall, true).mayTake("put"));
  CHECK_FALSE(tableOf(put(".weak "), kCall, true).mayTake("put"));
  CHECK_FALSE(tableOf(put(), std::string(kCall) + "\nmov.u64 %rd2, put;").mayTake("put"));
  CHECK_FALSE(tableOf(".func sum(.param .b64 sum_p, .param .align 8 .b8 sum_va[])\n{\nret;\n}\n",
                      "{\n.param .b64 a0;\nst.param.b64 [a0+0], %rd1;\n.param .align 8 .b8 a1[8];\n"
                      "call.uni sum, (a0, a1);\n}")
                  .mayTake("sum"));
  // A device function that takes its own parameter's address makes local memory in no frame
  // the table records: the module keeps none.
  FrameTable off = tableOf(".func f(.param .align 4 .b8 f_p[8])\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, f_p;\n"
                           "st.local.u32 [%rd1], 0;\nret;\n}\n",
                           "{\n.param .align 4 .b8 a0[8];\nst.param.b32 [a0], 0;\ncall.uni f, (a0);\n}");
  CHECK(off.off == "device function f takes the address of its own parameter");
  CHECK_FALSE(off.mayTake("f"));
  // Also as a constant expression, and stored.
  CHECK_FALSE(tableOf(".func f(.param .align 4 .b8 f_p[8])\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, f_p+4;\n"
                      "st.local.u32 [%rd1], 0;\nret;\n}\n",
                      "{\n.param .align 4 .b8 a0[8];\nst.param.b32 [a0], 0;\ncall.uni f, (a0);\n}")
                  .off.empty());
  CHECK_FALSE(tableOf(".func f(.param .align 4 .b8 f_p[8])\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, 0;\n"
                      "st.u64 [%rd1], f_p;\nret;\n}\n",
                      "{\n.param .align 4 .b8 a0[8];\nst.param.b32 [a0], 0;\ncall.uni f, (a0);\n}")
                  .off.empty());
}

TEST_CASE("the frame table: the lookups, their callers, and what the kernels that make it call", "[frame-table]") {
  // look(): a lookup; mid() calls look and leaf; leaf() calls deep; other() is called by a
  // kernel that makes no table.
  auto fn = [](const std::string& name, const std::vector<std::string>& calls) {
    std::string body = ".func " + name + "()\n{\n";
    for (const auto& c : calls) body += "{\ncall.uni " + c + ", ();\n}\n";
    return body + "ret;\n}\n";
  };
  std::string functions = fn("deep", {}) + fn("leaf", {"deep"}) + fn("look", {}) + fn("mid", {"look", "leaf"}) +
                          fn("other", {}) + fn("lone", {}) +
                          ".visible .entry k2()\n{\n{\ncall.uni other, ();\n}\nret;\n}\n";
  cucatch::ptx::Module module = moduleOf(functions, "{\ncall.uni mid, ();\n}\n{\ncall.uni lone, ();\n}");
  FrameTable table = frameTableOf(module, false);
  FrameTableUse use = frameTableUse(module, table, {"look"});
  CHECK(use.callers == std::set<std::string>{"look", "mid"});
  // k calls mid: it makes the table, and every function it reaches takes it; k2 reaches other only.
  CHECK(use.takers == std::set<std::string>{"deep", "leaf", "lone", "look", "mid"});
  CHECK(frameTableUse(module, table, {}).takers.empty());
}
