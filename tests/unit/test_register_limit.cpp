// Launch validity arithmetic (instrument/RegisterLimit), and finding ptxas and reading its
// verbose output (toolchain/SearchPath, toolchain/Ptxas): the register cap that keeps an
// instrumented kernel launchable with every block size its original accepted, and the stack a
// kernel that recurses needs (instrument/StackReserve).
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "instrument/RegisterLimit.h"
#include "instrument/StackReserve.h"
#include "ptx/Parser.h"
#include "toolchain/CubinReuse.h"
#include "toolchain/Ptxas.h"
#include "toolchain/SearchPath.h"

using namespace cucatch::instrument;

TEST_CASE("register file limits by architecture", "[register-limit]") {
  REQUIRE(registerFileLimits("sm_90"));
  CHECK(registerFileLimits("sm_90a")->registersPerBlock == 65536);
  CHECK(registerFileLimits("sm_100f")->registersPerBlock == 65536);
  CHECK(registerFileLimits("compute_80")->registersPerBlock == 65536);
  // Tegra X1 and X2 have half the register file per block.
  CHECK(registerFileLimits("sm_53")->registersPerBlock == 32768);
  CHECK(registerFileLimits("sm_62")->registersPerBlock == 32768);
  CHECK_FALSE(registerFileLimits("gfx90a"));
  CHECK_FALSE(registerFileLimits("sm_"));
}

TEST_CASE("largest block for a register count", "[register-limit]") {
  RegisterFileLimits sm90 = *registerFileLimits("sm_90");
  // Up to 64 registers a 1024-thread block fits (32 warps x 2048 registers).
  CHECK(maxThreadsPerBlock(1, sm90) == 1024);
  CHECK(maxThreadsPerBlock(40, sm90) == 1024);
  CHECK(maxThreadsPerBlock(64, sm90) == 1024);
  // 65..72 registers take 2304 per warp: 28 warps.
  CHECK(maxThreadsPerBlock(65, sm90) == 896);
  CHECK(maxThreadsPerBlock(72, sm90) == 896);
  // 100 registers: 13 units of 256 per warp, 19 warps.
  CHECK(maxThreadsPerBlock(100, sm90) == 608);
  CHECK(maxThreadsPerBlock(128, sm90) == 512);
  CHECK(maxThreadsPerBlock(255, sm90) == 256);
  CHECK(maxThreadsPerBlock(64, *registerFileLimits("sm_53")) == 512);
}

TEST_CASE("the register cap keeps the original's largest block", "[register-limit]") {
  RegisterFileLimits sm90 = *registerFileLimits("sm_90");
  CHECK(registerCapFor(1024, sm90) == 64);
  CHECK(registerCapFor(896, sm90) == 72);
  CHECK(registerCapFor(608, sm90) == 104);
  CHECK(registerCapFor(256, sm90) == 255);
  // For every original count, the cap admits the original's largest block and is the largest
  // count that does.
  for (unsigned r = 1; r <= 255; ++r) {
    unsigned threads = maxThreadsPerBlock(r, sm90);
    unsigned cap = registerCapFor(threads, sm90);
    CHECK(cap >= r);
    CHECK(maxThreadsPerBlock(cap, sm90) >= threads);
    if (cap < 255) CHECK(maxThreadsPerBlock(cap + 1, sm90) < threads);
  }
}

namespace {
cucatch::ptx::Module parse(const std::string& text) {
  auto r = cucatch::ptx::parseModule(text, "test.ptx");
  REQUIRE(r.ok());
  return std::move(*r.module);
}
const char* kTwoKernels = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry a(.param .u64 p)
{
ret;
}
.visible .entry b(.param .u64 p)
.reqntid 256, 1, 1
{
ret;
}
.func helper()
{
ret;
}
)";
}  // namespace

TEST_CASE("a kernel whose instrumented registers narrow its blocks gets a cap", "[register-limit]") {
  auto m = parse(kTwoKernels);
  RegisterLimitOptions o;
  // a: 100 registers originally (608 threads at most); 140 instrumented (448): capped at the
  // most that keeps 608, 104.
  o.originalRegisters = {{"a", 100}, {"b", 30}};
  o.instrumentedRegisters = {{"a", 140}, {"b", 90}};
  auto kernels = limitKernelRegisters(m, o);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "a");
  CHECK(kernels[0].originalRegisters == 100u);
  CHECK(kernels[0].instrumentedRegisters == 140u);
  CHECK(kernels[0].registerLimit == 104u);
  // .reqntid bounds b already.
  CHECK(kernels[1].boundedBy == ".reqntid");
  CHECK_FALSE(kernels[1].registerLimit);
  auto fs = m.functions();
  REQUIRE(fs[0]->attributes.size() == 1);
  CHECK(fs[0]->attributes[0].directive == ".maxnreg");
  CHECK(fs[0]->attributes[0].arguments == std::vector<std::string>{"104"});
  CHECK(fs[1]->attributes.size() == 1);  // only its .reqntid
  CHECK(fs[2]->attributes.empty());      // device functions get none
}

TEST_CASE("a launch twin takes no more registers than its kernel", "[register-limit]") {
  const char* twins = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry a(.param .u64 p)
{
ret;
}
.visible .entry a__cc_launch(.param .u64 p, .param .b64 p__cc_b, .param .b64 p__cc_s, .param .b32 p__cc_m)
{
ret;
}
.visible .entry b(.param .u64 p)
{
ret;
}
.visible .entry b__cc_launch(.param .u64 p, .param .b64 p__cc_b, .param .b64 p__cc_s, .param .b32 p__cc_m)
.maxnreg 80
{
ret;
}
)";
  auto m = parse(twins);
  RegisterLimitOptions o;
  // a: 40 instrumented, its twin 44: the twin is held to 40. b: capped at 64 (its original fits
  // 1024 threads), its twin (with a .maxnreg of its own) measured 70: held to 64 too.
  o.originalRegisters = {{"a", 30}, {"b", 60}};
  o.instrumentedRegisters = {{"a", 40}, {"a__cc_launch", 44}, {"b", 90}, {"b__cc_launch", 70}};
  auto kernels = limitKernelRegisters(m, o);
  boundTwinRegisters(m, kernels, false);
  auto fs = m.functions();
  CHECK(fs[0]->attributes.empty());
  REQUIRE(fs[1]->attributes.size() == 1);
  CHECK(fs[1]->attributes[0].arguments == std::vector<std::string>{"40"});
  CHECK(kernels[1].registerLimit == 40u);
  REQUIRE(fs[3]->attributes.size() == 1);
  CHECK(fs[3]->attributes[0].directive == ".maxnreg");
  CHECK(fs[3]->attributes[0].arguments == std::vector<std::string>{"64"});
  // A twin that takes fewer registers than its kernel is left as it is; so is one of up to 32
  // (no occupancy to lose there) beside a kernel of fewer; above 32 it is held to 32, not to the
  // kernel's 16 (below what ptxas takes as a .maxnreg).
  auto fewer = parse(twins);
  o.instrumentedRegisters = {{"a", 40}, {"a__cc_launch", 36}, {"b", 16}, {"b__cc_launch", 30}};
  o.originalRegisters = {{"a", 30}, {"b", 16}};
  auto k2 = limitKernelRegisters(fewer, o);
  boundTwinRegisters(fewer, k2, false);
  CHECK(fewer.functions()[1]->attributes.empty());
  REQUIRE(fewer.functions()[3]->attributes.size() == 1);
  CHECK(fewer.functions()[3]->attributes[0].arguments == std::vector<std::string>{"80"});  // its own, untouched
  auto floor = parse(twins);
  o.instrumentedRegisters = {{"a", 16}, {"a__cc_launch", 40}};
  auto k3 = limitKernelRegisters(floor, o);
  boundTwinRegisters(floor, k3, false);
  REQUIRE(floor.functions()[1]->attributes.size() == 1);
  CHECK(floor.functions()[1]->attributes[0].arguments == std::vector<std::string>{"32"});
}

TEST_CASE("a kernel that still accepts its original's blocks gets no cap", "[register-limit]") {
  auto m = parse(kTwoKernels);
  RegisterLimitOptions o;
  // Up to 64 registers every block size fits; 100 -> 104 keeps 608 threads.
  o.instrumentedRegisters = {{"a", 64}};
  CHECK_FALSE(limitKernelRegisters(m, o)[0].registerLimit);
  auto m2 = parse(kTwoKernels);
  o.instrumentedRegisters = {{"a", 104}};
  o.originalRegisters = {{"a", 100}};
  CHECK_FALSE(limitKernelRegisters(m2, o)[0].registerLimit);
  CHECK(m2.functions()[0]->attributes.empty());
  CHECK_FALSE(mayNarrowBlocks(64, *registerFileLimits("sm_90")));
  CHECK(mayNarrowBlocks(65, *registerFileLimits("sm_90")));
}

TEST_CASE("the original is measured only when a kernel may narrow its blocks", "[register-limit]") {
  auto kernels = kernelsOf(parse(kTwoKernels));  // a; b with .reqntid
  RegisterFileLimits sm90 = *registerFileLimits("sm_90");
  CHECK_FALSE(needsOriginalRegisters(kernels, {{"a", 64}, {"b", 200}}, sm90));
  CHECK(needsOriginalRegisters(kernels, {{"a", 65}, {"b", 200}}, sm90));
  // A kernel ptxas did not report is treated as one that may narrow.
  CHECK(needsOriginalRegisters(kernels, {{"b", 200}}, sm90));
}

TEST_CASE("without the original's count a narrowing kernel is held to the largest block", "[register-limit]") {
  auto m = parse(kTwoKernels);
  RegisterLimitOptions o;
  o.instrumentedRegisters = {{"a", 90}};
  CHECK(limitKernelRegisters(m, o)[0].registerLimit == 64u);
  // Not measured at all: capped too.
  auto m2 = parse(kTwoKernels);
  CHECK(limitKernelRegisters(m2, {})[0].registerLimit == 64u);
}

TEST_CASE("the cap never exceeds -maxrregcount", "[register-limit]") {
  auto m = parse(kTwoKernels);
  RegisterLimitOptions o;
  o.originalRegisters = {{"a", 30}};
  o.instrumentedRegisters = {{"a", 80}};
  o.maxRegisterCount = 40;
  CHECK(limitKernelRegisters(m, o)[0].registerLimit == 40u);
}

TEST_CASE("in relocatable code a kernel that calls a device function of the module is capped for the whole module", "[register-limit]") {
  // ptxas --compile-only compiles `helper` at its own count and refuses an entry with a smaller
  // .maxnreg that calls it ("Entry function 'a' with max regcount of 64 calls function 'helper'
  // with regcount of 86"; seen on the cuda-samples interval program).
  const char* text = R"(.version 8.0
.target sm_90
.address_size 64
.func helper()
{
call.uni deeper, ();
ret;
}
.func deeper()
{
ret;
}
.visible .entry a(.param .u64 p)
{
call.uni helper, ();
ret;
}
.visible .entry b(.param .u64 p)
{
ret;
}
)";
  RegisterLimitOptions o;
  o.originalRegisters = {{"a", 30}, {"b", 30}};
  o.instrumentedRegisters = {{"a", 90}, {"b", 90}};
  o.relocatable = true;
  auto m = parse(text);
  auto kernels = limitKernelRegisters(m, o);
  REQUIRE(kernels.size() == 2);
  // a: no .maxnreg (ptxas would refuse it); the module is compiled with -maxrregcount=64, which
  // bounds helper and deeper too.
  CHECK(kernels[0].registerLimit == 64u);
  CHECK(kernels[0].moduleCapBecause.find("device function helper") != std::string::npos);
  CHECK(moduleRegisterCap(kernels, {}) == 64u);
  auto fs = m.functions();
  CHECK(fs[2]->name == "a");
  CHECK(fs[2]->attributes.empty());
  CHECK(kernels[1].registerLimit == 64u);  // calls nothing: its own .maxnreg as ever
  CHECK(kernels[1].moduleCapBecause.empty());
  // Whole-program code: ptxas fits the callee under the entry's cap.
  o.relocatable = false;
  auto m2 = parse(text);
  auto whole = limitKernelRegisters(m2, o);
  CHECK(whole[0].registerLimit == 64u);
  CHECK_FALSE(moduleRegisterCap(whole, {}));
  // An indirect call (virtual functions) counts too.
  const char* indirect = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry v(.param .u64 p)
{
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [p];
prototype_0 : .callprototype ()_ ();
call %rd1, (), prototype_0;
ret;
}
)";
  auto m3 = parse(indirect);
  RegisterLimitOptions narrows;
  narrows.originalRegisters = {{"v", 20}};
  narrows.instrumentedRegisters = {{"v", 90}};
  narrows.relocatable = true;
  auto v = limitKernelRegisters(m3, narrows);
  CHECK(v[0].moduleCapBecause.find("indirect call") != std::string::npos);
  CHECK(moduleRegisterCap(v, {}) == 64u);
  // Where the kernel's own count fits, and every device function of the module was measured
  // (each caps the module itself where it would narrow its callers' blocks; other units bound
  // theirs), no cap: one would make nvlink refuse a call of a plain library's function of more
  // registers ("entry function ... with max regcount of 64 calls function ... with regcount of 83").
  RegisterLimitOptions fits = narrows;
  fits.instrumentedRegisters = {{"v", 30}};
  auto m4 = parse(indirect);
  CHECK(limitKernelRegisters(m4, fits)[0].moduleCapBecause.empty());
  o.relocatable = true;
  o.instrumentedRegisters = {{"a", 40}, {"b", 40}, {"helper", 40}, {"deeper", 40}};
  auto m5 = parse(text);
  CHECK(limitKernelRegisters(m5, o)[0].moduleCapBecause.empty());
  // ... but a device function ptxas gave no count for could narrow them: the cap stays.
  o.instrumentedRegisters = {{"a", 40}, {"b", 40}, {"helper", 40}};
  auto m6 = parse(text);
  CHECK(limitKernelRegisters(m6, o)[0].moduleCapBecause.find("device function helper") != std::string::npos);
  CHECK(cucatch::toolchain::compilesRelocatable(cucatch::toolchain::splitOptions("-O3 --compile-only")));
  CHECK(cucatch::toolchain::compilesRelocatable(cucatch::toolchain::splitOptions("-c")));
  CHECK_FALSE(cucatch::toolchain::compilesRelocatable(cucatch::toolchain::splitOptions("-O3 -g")));
}

TEST_CASE("in relocatable code a call of another unit's function through its .weak entry point is no reason for a cap", "[register-limit]") {
  // ext__cc_meta only forwards to ext, which another unit compiles and bounds (RelocatableCalls.h);
  // put__cc_meta is this unit's own function's body.
  const char* text = R"(.version 8.0
.target sm_90
.address_size 64
.extern .func ext(.param .b64 ext_p);
.weak .func ext__cc_meta(.param .b64 ext_p)
{
call ext, (ext_p);
ret;
}
.visible .func put__cc_meta()
{
ret;
}
.visible .entry a(.param .u64 p)
{
call.uni ext__cc_meta, (p);
ret;
}
.visible .entry b(.param .u64 p)
{
call.uni put__cc_meta, ();
ret;
}
)";
  RegisterLimitOptions o;
  o.originalRegisters = {{"a", 20}, {"b", 20}};
  o.instrumentedRegisters = {{"a", 30}, {"b", 30}};
  o.relocatable = true;
  auto m = parse(text);
  auto kernels = limitKernelRegisters(m, o);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].moduleCapBecause.empty());
  CHECK(kernels[1].moduleCapBecause.find("device function put__cc_meta") != std::string::npos);
}

TEST_CASE("in relocatable code a device function that would narrow its callers' blocks caps its module", "[register-limit]") {
  // A unit with no kernel: a kernel of another unit that calls `heavy` runs at heavy's count
  // after linking. `light` grew too, but still admits 1024 threads; `wide` had 80 registers
  // (768 threads) and must keep 768.
  const char* text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .func heavy()
{
ret;
}
.func light()
{
ret;
}
.visible .func wide()
{
ret;
}
.visible .func unmeasured()
{
ret;
}
)";
  RegisterLimitOptions o;
  o.originalRegisters = {{"heavy", 60}, {"light", 20}, {"wide", 80}};
  o.instrumentedRegisters = {{"heavy", 84}, {"light", 40}, {"wide", 96}};
  o.relocatable = true;
  auto m = parse(text);
  auto functions = limitDeviceFunctionRegisters(m, o);
  REQUIRE(functions.size() == 2);
  CHECK(functions[0].name == "heavy");
  CHECK(functions[0].registerLimit == 64u);
  CHECK(functions[0].originalRegisters == 60u);
  CHECK(functions[0].instrumentedRegisters == 84u);
  CHECK_FALSE(functions[0].moduleCapBecause.empty());
  CHECK(functions[1].name == "wide");
  CHECK(functions[1].registerLimit == 80u);
  CHECK(moduleRegisterCap({}, functions) == 64u);
  // Whole-program code measures no device function: they are part of their kernels' counts.
  o.relocatable = false;
  CHECK(limitDeviceFunctionRegisters(m, o).empty());
  // -maxrregcount in force bounds the cap, as for kernels.
  o.relocatable = true;
  o.maxRegisterCount = 48;
  CHECK(limitDeviceFunctionRegisters(m, o)[0].registerLimit == 48u);
}

TEST_CASE("ptxas -v output gives each kernel's registers", "[ptxas]") {
  // As ptxas 13.0 prints it, with device functions' properties in between.
  const char* text =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z1kPi' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z1kPi\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 27 registers, used 0 barriers, 8 bytes cumulative stack size\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Used 4 registers, used 1 barriers, 16424 bytes smem\n";
  auto r = cucatch::toolchain::parseVerboseOutput(text);
  CHECK(r.kernels == std::map<std::string, unsigned>{{"_Z1kPi", 27}, {"other", 4}});
  // Every function's own frame, kernels' too.
  CHECK(r.stackFrames == std::map<std::string, unsigned>{{"_Z1kPi", 0}, {"_Z6helperv", 8}});
}

namespace {

// A kernel `rec` calling a recursive function `down` that calls a leaf `leaf`, and another leaf
// `side`; a kernel `flat` calling only the leaf; a kernel `virt` making an indirect call.
const char* kRecursion = R"(.version 8.0
.target sm_90
.address_size 64
.func leaf()
{
ret;
}
.func side()
{
ret;
}
.func down(.param .b32 down_param_0)
{
.reg .b32 %r<3>;
.reg .pred %p<2>;
ld.param.u32 %r1, [down_param_0];
setp.eq.s32 %p1, %r1, 0;
@%p1 bra $done;
add.s32 %r2, %r1, -1;
{
.param .b32 param0;
st.param.b32 [param0], %r2;
call.uni down, (param0);
}
$done:
call.uni leaf, ();
ret;
}
.visible .entry rec()
{
{
.param .b32 param0;
st.param.b32 [param0], 3;
call.uni down, (param0);
}
call.uni side, ();
ret;
}
.visible .entry flat()
{
call.uni leaf, ();
ret;
}
.visible .entry virt(.param .u64 virt_param_0)
{
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [virt_param_0];
proto: .callprototype _ ();
call.uni %rd1, (), proto;
ret;
}
)";

}  // namespace

TEST_CASE("the stack a kernel that recurses needs instrumented", "[stack-reserve]") {
  auto parsed = cucatch::ptx::parseModule(kRecursion, "r.ptx");
  REQUIRE(parsed.ok());
  const auto& m = *parsed.module;
  // ptxas sizes `flat`'s stack itself; `rec` recurses, `virt` calls through a pointer.
  CHECK(kernelsWithUnsizedStack(m) == std::vector<std::string>{"rec", "virt"});
  // Frames grew: the recursive function 100 -> 150 bytes (1.5x), the kernel 0 -> 112 and the
  // leaves 0 -> 16 and 0 -> 40 (each on a path at most once: added whole, along the heaviest
  // path: rec, down's cycle, leaf is 112 + 16; rec, side is 112 + 40).
  std::map<std::string, unsigned> original{{"rec", 0},  {"down", 100}, {"leaf", 0},
                                           {"side", 0}, {"flat", 0},   {"virt", 0}};
  std::map<std::string, unsigned> instrumented{{"rec", 112}, {"down", 150}, {"leaf", 16},
                                               {"side", 40}, {"flat", 0},   {"virt", 0}};
  StackReserves r = stackReserves(m, original, instrumented);
  REQUIRE(r.kernels.count("rec"));
  CHECK(r.kernels["rec"].ratioPerMille == 1500);
  CHECK(r.kernels["rec"].extraBytes == 152);
  // `virt` may reach every device function: `down` too, and `side`.
  REQUIRE(r.kernels.count("virt"));
  CHECK(r.kernels["virt"].ratioPerMille == 1500);
  CHECK(r.kernels["virt"].extraBytes == 40);
  CHECK_FALSE(r.kernels.count("flat"));
  CHECK(r.unbounded.empty());
  // Rounded up: 100 -> 133 bytes is 1.33x.
  instrumented["down"] = 133;
  CHECK(stackReserves(m, original, instrumented).kernels["rec"].ratioPerMille == 1330);
  instrumented["down"] = 101;
  original["down"] = 300;
  CHECK(stackReserves(m, original, instrumented).kernels["rec"].ratioPerMille == 1000);
  // No frame changed: nothing to raise.
  CHECK(stackReserves(m, original, original).kernels.empty());
  // A recursive function's entry point that takes its bounds from its callers (relocatable code:
  // NAME__cc_meta has NAME's body) is measured against NAME's original frame.
  {
    auto meta = cucatch::ptx::parseModule(
        R"(.version 8.0
.target sm_90
.address_size 64
.visible .func down__cc_meta()
{
call.uni down__cc_meta, ();
ret;
}
.visible .func down()
{
call.uni down__cc_meta, ();
ret;
}
.visible .entry k()
{
call.uni down, ();
ret;
}
)",
        "m.ptx");
    REQUIRE(meta.ok());
    StackReserves mr = stackReserves(*meta.module, {{"down", 40}, {"k", 0}}, {{"down__cc_meta", 60}, {"down", 8}, {"k", 0}});
    CHECK(mr.unbounded.empty());
    REQUIRE(mr.kernels.count("k"));
    CHECK(mr.kernels["k"].ratioPerMille == 1500);
    CHECK(mr.kernels["k"].extraBytes == 8);
  }
  // A recursive function with no frame of its own in the original says nothing of how deep it
  // went: unbounded.
  original["down"] = 0;
  r = stackReserves(m, original, instrumented);
  CHECK(r.unbounded == std::vector<std::string>{"rec", "virt"});
  CHECK(r.kernels.empty());
}

TEST_CASE("ptxas options: the -maxrregcount in force", "[ptxas]") {
  using cucatch::toolchain::maxRegisterCount;
  using cucatch::toolchain::splitOptions;
  CHECK_FALSE(maxRegisterCount(splitOptions("-O3 -g")));
  CHECK(maxRegisterCount(splitOptions("-maxrregcount=40")) == 40u);
  CHECK(maxRegisterCount(splitOptions("--maxrregcount 32 -v")) == 32u);
  CHECK(maxRegisterCount(splitOptions("-maxrregcount 32 -maxrregcount=48")) == 48u);  // the last wins
}

TEST_CASE("the whole-module register cap travels in the PTX's first line", "[ptxas]") {
  using namespace cucatch::toolchain;
  std::string marked = registerCapMarker(64) + ".version 8.0\n";
  CHECK(readRegisterCapMarker(marked.substr(0, marked.find('\n'))) == 64u);
  CHECK(readRegisterCapMarker(marked) == 64u);  // a whole module: its first line
  CHECK_FALSE(readRegisterCapMarker(".version 8.0"));
  CHECK_FALSE(readRegisterCapMarker("// cucatch: ptxas -maxrregcount=x"));
  CHECK(withMaxRegisterCount(splitOptions("-arch=sm_90 -maxrregcount=96 --compile-only a.ptx"), 64) ==
        splitOptions("-arch=sm_90 --compile-only a.ptx -maxrregcount=64"));
  CHECK(withMaxRegisterCount(splitOptions("--maxrregcount 96 a.ptx"), 40) == splitOptions("a.ptx -maxrregcount=40"));
  CHECK(withMaxRegisterCount(splitOptions("-maxreg=8 a.ptx -maxrregcount"), 40) == splitOptions("a.ptx -maxrregcount=40"));
  CHECK_FALSE(maxRegisterCount(splitOptions("-O3 -maxrregcount")));  // no value: not a cap
}

TEST_CASE("finding ptxas on a search path as execvp does", "[ptxas]") {
  namespace fs = std::filesystem;
  using cucatch::toolchain::findOnPath;
  fs::path dir = fs::temp_directory_path() / fmt::format("cucatch-search-{}", ::getpid());
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::ofstream(dir / "a/ptxas") << "";  // not executable: skipped
  std::ofstream(dir / "b/ptxas") << "#!/bin/sh\n";
  fs::permissions(dir / "b/ptxas", fs::perms::owner_exec, fs::perm_options::add);
  std::string a = (dir / "a").string(), b = (dir / "b").string();
  CHECK(findOnPath("ptxas", a + ":" + b) == (dir / "b/ptxas").string());
  CHECK(findOnPath("ptxas", a).empty());
  CHECK(findOnPath("ptxas", "").empty());
  // An empty entry is the current directory.
  fs::path cwd = fs::current_path();
  fs::current_path(dir / "b");
  CHECK(findOnPath("ptxas", a + "::/nonexistent") == "./ptxas");
  fs::current_path(cwd);
  fs::remove_all(dir);
}

TEST_CASE("stack under recursion: a forwarder in a cycle counts with each original frame", "[stack]") {
  // A review's reproducer (relocatable code): r's body recurses through a function pointer to r,
  // now a forwarder to r__cc_body. Each level stacks the forwarder's 8 bytes beside the body's
  // 296, where the original had 296 alone: R = 304 / 296, not 1.
  cucatch::callgraph::Functions g;
  g["k"] = {.kernel = true, .callees = {"r__cc_body"}, .frame = 0, .original = 0};
  g["r"] = {.callees = {"r__cc_body"}, .frame = 8, .original = 296, .forwarder = true};
  g["r__cc_body"] = {.callsIndirectly = true, .frame = 296, .original = 296};
  auto reserves = cucatch::callgraph::stackReserves(g);
  CHECK(reserves.unbounded.empty());
  REQUIRE(reserves.kernels.count("k"));
  CHECK(reserves.kernels["k"].ratioPerMille == 1028);  // 304 / 296, rounded up
  CHECK(reserves.kernels["k"].extraBytes == 0);
  // Outside a cycle a forwarder's frame is added whole, as any function's.
  g["r__cc_body"].callsIndirectly = false;
  g["k"].callees = {"r"};
  g["r__cc_body"].callees = {"r__cc_body"};
  reserves = cucatch::callgraph::stackReserves(g);
  REQUIRE(reserves.kernels.count("k"));
  CHECK(reserves.kernels["k"].ratioPerMille == 1000);
  CHECK(reserves.kernels["k"].extraBytes == 8);
}

TEST_CASE("ptxas options compared for reusing an object", "[ptxas][reuse]") {
  using cucatch::toolchain::reuseKey;
  // Order does not matter to ptxas (its object records the options in an order of its own).
  CHECK(reuseKey({"-m64", "-arch=sm_90", "--generate-line-info"}) ==
        std::vector<std::string>{"--generate-line-info", "-arch=sm_90", "-m64"});
  CHECK(reuseKey({}) == std::vector<std::string>{});
  // Refused: what would compare equal but compile differently, or print, or name files.
  CHECK_FALSE(reuseKey({"-O", "3"}));               // a value as its own word
  CHECK_FALSE(reuseKey({"-O1", "-O3"}));            // twice: the last one counts
  CHECK_FALSE(reuseKey({"--opt-level=1", "-O3"}));
  CHECK_FALSE(reuseKey({"-m64", "--machine=64"}));
  CHECK_FALSE(reuseKey({"-arch=sm_90", "--gpu-name=sm_80"}));
  CHECK_FALSE(reuseKey({"-arch=sm_90", "-v"}));
  CHECK_FALSE(reuseKey({"--verbose"}));
  CHECK_FALSE(reuseKey({"-g", "--dont-merge-basicblocks"}));
  CHECK_FALSE(reuseKey({"--device-debug"}));
  CHECK_FALSE(reuseKey({"--options-file=opts.txt"}));
  CHECK_FALSE(reuseKey({"-optf=opts.txt"}));
}

TEST_CASE("an object kept for reuse is found only for its text and options", "[ptxas][reuse]") {
  namespace fs = std::filesystem;
  using cucatch::toolchain::findReusable;
  char dirTemplate[] = "/tmp/cucatch-reuse-test-XXXXXX";
  REQUIRE(mkdtemp(dirTemplate));
  const std::string dir = dirTemplate;
  auto write = [](const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  const std::string text = ".version 9.0\n.target sm_90\n.address_size 64\n";
  write(dir + "/measured.cubin", "OBJECT");
  cucatch::toolchain::storeForReuse(dir, text, dir + "/measured.cubin", "-arch=sm_90", {"-m64", "-O2"});
  CHECK_FALSE(fs::exists(dir + "/measured.cubin"));  // moved into the entry
  const std::string input = dir + "/input.ptx";
  write(input, text);
  auto found = findReusable(dir, {"-arch=sm_90", "-m64", "-O2", input, "-o", "out.cubin"});
  REQUIRE(found);
  CHECK(found->output == "out.cubin");
  std::ifstream in(found->object, std::ios::binary);
  std::string object((std::istreambuf_iterator<char>(in)), {});
  CHECK(object == "OBJECT");
  // The options in another order and the input under any name: the same object.
  CHECK(findReusable(dir, {"-O2", input, "-o", "x.cubin", "-m64", "-arch=sm_90"}));
  // Anything else is compiled.
  CHECK_FALSE(findReusable(dir, {"-arch=sm_80", "-m64", "-O2", input, "-o", "out.cubin"}));
  CHECK_FALSE(findReusable(dir, {"-arch=sm_90", "-m64", input, "-o", "out.cubin"}));
  CHECK_FALSE(findReusable(dir, {"-arch=sm_90", "-m64", "-O2", "-v", input, "-o", "out.cubin"}));
  CHECK_FALSE(findReusable(dir, {"-arch=sm_90", "-m64", "-O2", input}));  // no -o
  write(input, text + "// one more line\n");
  CHECK_FALSE(findReusable(dir, {"-arch=sm_90", "-m64", "-O2", input, "-o", "out.cubin"}));
  // Options that cannot be compared keep nothing.
  write(dir + "/debug.cubin", "DEBUG");
  cucatch::toolchain::storeForReuse(dir, text, dir + "/debug.cubin", "-arch=sm_90", {"-g"});
  CHECK_FALSE(fs::exists(dir + "/debug.cubin"));
  fs::remove_all(dir);
}

TEST_CASE("a kernel's registers read from the object are the ones ptxas -v prints", "[ptxas][reuse]") {
  const std::string ptxas = cucatch::toolchain::findPtxas();
  REQUIRE(!ptxas.empty());
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 p, .param .u32 n) {\n"
      "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<8>;\n"
      "  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [n];\n  cvta.to.global.u64 %rd2, %rd1;\n"
      "  mov.u32 %r2, %tid.x;\n  mul.wide.u32 %rd3, %r2, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
      "  ld.global.f32 %f1, [%rd4];\n  cvt.rn.f32.s32 %f2, %r1;\n  fma.rn.f32 %f3, %f1, %f2, %f1;\n"
      "  st.global.f32 [%rd4], %f3;\n  ret;\n}\n";
  const auto verbose = cucatch::toolchain::measureRegisters(ptxas, "sm_90", {"-m64"}, ptx, "k");
  const auto object = cucatch::toolchain::measureFromObject(ptxas, "sm_90", {"-m64"}, ptx, {"k"}, "k");
  REQUIRE(verbose.kernels.count("k"));
  CHECK(object.kernels == verbose.kernels);
  CHECK_THROWS(cucatch::toolchain::measureFromObject(ptxas, "sm_90", {"-m64"}, ptx, {"k", "missing"}, "k"));
  CHECK_THROWS_AS(cucatch::toolchain::measureFromObject(ptxas, "sm_90", {"--compile-only"}, ptx, {"k"}, "k"),
                  std::logic_error);
}
