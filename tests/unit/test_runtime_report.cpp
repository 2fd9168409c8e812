// The runtime's reports and options, without a GPU: the site table the rewriter embeds is the
// one the runtime parses; an error record becomes the report a user reads; CUCATCH_* values
// are checked.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "instrument/Instrument.h"
#include "ptx/Parser.h"
#include "runtime/Options.h"
#include "runtime/Report.h"

using namespace cucatch::runtime;
namespace abi = cucatch::abi;

namespace {

const char* kModule = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	.loc 1 7 3
	ld.param.u64 %rd1, [k_param_0];
	st.global.u32 [%rd1], %r1;
	ret;
}
	.file 1 "/src/k.cu"
)";

std::string fakeSymbol(uintptr_t f) { return "frame" + std::to_string(f); }

abi::ErrorRecord record(uint32_t site, unsigned size, unsigned flags, uint64_t address, uint64_t base, uint64_t bytes,
                        uint32_t meta) {
  abi::ErrorRecord r{};
  r.site = site;
  r.info = size << 8 | flags;
  r.address = address;
  r.base = base;
  r.size = bytes;
  r.meta = meta;
  r.block[0] = 2;
  r.thread[0] = 31;
  return r;
}

bool everyLineIsCucatch(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("cucatch:", 0) != 0) return false;
  return true;
}

}  // namespace

// A site as the site table gives it (the fields a report prints; the object ones stay empty).
Site siteAt(std::string function, std::string file, uint32_t line, uint32_t column, uint32_t ptxLine,
            std::string instruction, bool entry, std::string inlinedFile = "", uint32_t inlinedLine = 0,
            uint32_t inlinedColumn = 0) {
  Site s;
  s.function = std::move(function);
  s.file = std::move(file);
  s.line = line;
  s.column = column;
  s.ptxLine = ptxLine;
  s.instruction = std::move(instruction);
  s.inlinedFile = std::move(inlinedFile);
  s.inlinedLine = inlinedLine;
  s.inlinedColumn = inlinedColumn;
  s.entry = entry;
  return s;
}

TEST_CASE("the site table the rewriter embeds is the one the runtime reads", "[runtime]") {
  auto parsed = cucatch::ptx::parseModule(kModule, "k.ptx");
  REQUIRE(parsed.ok());
  cucatch::instrument::InstrumentOptions options;
  cucatch::instrument::RegisterLimitSetup setup;
  setup.limits = *cucatch::instrument::registerFileLimits("sm_80");
  setup.measureInstrumented = [](const cucatch::ptx::Module&) { return cucatch::instrument::PtxasCounts{{{"k", 70}}, {}}; };
  setup.measureOriginal = [] { return cucatch::instrument::PtxasCounts{{{"k", 12}}, {}}; };
  options.registerLimit = setup;
  auto result = cucatch::instrument::instrumentModule(*parsed.module, options);
  // The kernel's access, and its launch twin's (instrument/LaunchMetadata.h), which names the kernel.
  REQUIRE(result.sites.size() == 2);
  SiteTable t = SiteTable::parse(cucatch::instrument::siteTableJson(*parsed.module, result));
  REQUIRE(t.sites.size() == 2);
  CHECK(t.sites[1].function == "k");
  CHECK(t.sites[1].instruction == t.sites[0].instruction);
  CHECK(t.sites[0].function == "k");
  CHECK(t.sites[0].file == "/src/k.cu");
  CHECK(t.sites[0].line == 7);
  CHECK(t.sites[0].column == 3);
  CHECK(t.sites[0].instruction == "st.global.u32 [%rd1], %r1;");
  // The unit's kernels, with the original's registers and the instrumented kernel's cap.
  REQUIRE(t.kernels.count("k"));
  CHECK(t.kernels["k"].registers == 12u);
  CHECK(t.kernels["k"].registerLimit == 64u);
  // Its launch twin: the parameters whose bounds it takes, and the kernel's own count; the twin
  // is capped as its kernel is (the original measured under the kernel's name).
  CHECK(t.kernels["k"].launchTwin == "k__cc_launch");
  CHECK(t.kernels["k"].launchParams == std::vector<uint32_t>{0});
  CHECK(t.kernels["k"].paramCount == 1u);
  REQUIRE(t.kernels.count("k__cc_launch"));
  CHECK(t.kernels["k__cc_launch"].registers == 12u);
  CHECK(t.kernels["k__cc_launch"].launchTwin.empty());
  CHECK_THROWS(SiteTable::parse("{not json"));
  CHECK_THROWS(SiteTable::parse(R"({"abi": 1, "sites": []})"));
}

// The site table of `module` as cucatch-ptx would embed it, read back as the runtime reads it.
SiteTable instrumentedSites(const char* module) {
  auto parsed = cucatch::ptx::parseModule(module, "module.ptx");
  REQUIRE(parsed.ok());
  cucatch::instrument::InstrumentOptions options;
  options.registerLimit.reset();
  auto result = cucatch::instrument::instrumentModule(*parsed.module, options);
  return SiteTable::parse(cucatch::instrument::siteTableJson(*parsed.module, result));
}

TEST_CASE("an overflow of a __device__ array names the variable, from the site table to the report", "[runtime]") {
  const char* module = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .b8 _ZN5stats5tableE[256];
.visible .entry k(.param .u32 k_param_0)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u32 %r1, [k_param_0];
	mov.u64 %rd1, _ZN5stats5tableE;
	mul.wide.s32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	.loc 1 12 5
	st.global.u32 [%rd3], %r1;
	ret;
}
	.file 1 "/src/stats.cu"
)";
  SiteTable t = instrumentedSites(module);
  REQUIRE(t.sites.size() == 1);
  CHECK(t.sites[0].object == "_ZN5stats5tableE");
  CHECK(t.sites[0].objectBytes == 256);
  // The device checked table[64] against the variable's address and size.
  Metadata m;
  uint64_t table = 0x7f5b40001000ull;
  auto r = record(0, 4, abi::kAccessWrite, table + 256, table, 256, abi::kBstLive << abi::kMetaStateShift);
  Violation v = fromRecord(r, &t.sites[0], "stats.cu", m.findChecked(r.base, r.size, 0));
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("address is 0 bytes after the end of the 256-byte module variable 'stats::table' (__device__)") !=
        std::string::npos);
  CHECK(text.find("no longer known") == std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["object"]["name"] == "stats::table");
  CHECK(j["object"]["offset"] == 256);
}

TEST_CASE("shared and __constant__ overflows name the space and the array", "[runtime]") {
  const char* module = R"(.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 taps[32];
.extern .shared .align 16 .b8 window[];
.visible .entry k(.param .u32 k_param_0)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 _ZZ1kiE4tile[256];
	ld.param.u32 %r1, [k_param_0];
	mov.u32 %r2, _ZZ1kiE4tile;
	add.s32 %r3, %r2, %r1;
	.loc 1 7 5
	st.shared.f32 [%r3], %f1;
	mov.u32 %r4, window;
	add.s32 %r5, %r4, %r1;
	.loc 1 8 5
	ld.shared.f32 %f2, [%r5];
	mul.wide.s32 %rd1, %r1, 4;
	mov.u64 %rd2, taps;
	add.s64 %rd3, %rd2, %rd1;
	.loc 1 9 5
	ld.const.f32 %f3, [%rd3];
	ret;
}
	.file 1 "/src/k.cu"
)";
  SiteTable t = instrumentedSites(module);
  REQUIRE(t.sites.size() == 3);
  const Site* shared = nullptr;
  const Site* dynamic = nullptr;
  const Site* constant = nullptr;
  for (const auto& s : t.sites) (s.line == 7 ? shared : s.line == 8 ? dynamic : constant) = &s;
  REQUIRE((shared && dynamic && constant));
  CHECK(shared->space == "shared");
  CHECK(shared->objectSpace == "shared");
  CHECK(dynamic->objectDynamic);
  CHECK(constant->objectSpace == "const");
  Metadata m;
  // Shared addresses are window offsets: never looked up among allocations, never "null".
  auto r = record(0, 4, abi::kAccessWrite, 0x508, 0x400, 256, abi::kBstLive << abi::kMetaStateShift);
  Violation v = fromRecord(r, shared, "k.cu", nullptr);
  CHECK(v.kind == ViolationKind::OutOfBounds);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds write of 4 bytes in shared memory at") != std::string::npos);
  CHECK(text.find("address is 8 bytes after the end of the 256-byte shared array 'k(int)::tile' (__shared__)") !=
        std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["space"] == "shared");
  CHECK(j["object"]["space"] == "shared");
  CHECK(j["object"]["offset"] == 264);
  // The dynamic region's size is the launch's, from the record.
  r = record(1, 4, abi::kAccessRead, 0x800, 0x500, 0x300, abi::kBstLive << abi::kMetaStateShift);
  v = fromRecord(r, dynamic, "k.cu", nullptr);
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("address is 0 bytes after the end of the dynamic shared memory 'window' (768 bytes at this launch)") !=
        std::string::npos);
  CHECK(toJson(v, fakeSymbol)["object"]["size"] == 768);
  // A __constant__ array, at a constant-bank address inside the null page: not a null pointer.
  r = record(2, 4, abi::kAccessRead, 0x20, 0x0, 32, abi::kBstLive << abi::kMetaStateShift);
  v = fromRecord(r, constant, "k.cu", nullptr);
  CHECK(v.kind == ViolationKind::OutOfBounds);
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("in constant memory") != std::string::npos);
  CHECK(text.find("0 bytes after the end of the 32-byte constant array 'taps' (__constant__)") != std::string::npos);
}

TEST_CASE("an overflow from one carved part of dynamic shared memory into the next names the part", "[runtime]") {
  Site site;
  site.function = "_Z5carvePfii";
  site.entry = true;
  site.space = "shared";
  site.object = "arena";
  site.objectSpace = "shared";
  site.objectDynamic = true;
  site.objectPart = true;
  // The part at 0x600 (the region starts at 0x400), 256 bytes: checked from the region's start
  // to the part's end (0x300 bytes), the part's start in the high half of the size.
  auto r = record(0, 4, abi::kAccessWrite, 0x700, 0x400, (uint64_t{0x600} << 32) | 0x300,
                  abi::kBstLive << abi::kMetaStateShift);
  Violation v = fromRecord(r, &site, "carve.cu", nullptr);
  CHECK(v.checkedSize == 256);
  CHECK(v.partOffset == 0x200);
  Metadata m;
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds write of 4 bytes in shared memory at 0x0000000000000700") != std::string::npos);
  CHECK(text.find("address is 0 bytes after the end of the part at offset 512 of the dynamic shared memory 'arena' "
                  "(256 bytes at this launch;") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["object"]["dynamic"] == true);
  CHECK(j["object"]["size"] == 256);
  CHECK(j["object"]["offset"] == 256);
  CHECK(j["object"]["part"]["offset"] == 512);
}

TEST_CASE("an access checked against the shared window says so, whatever its site", "[runtime]") {
  // A generic store in a device function, through a pointer parameter that isspacep placed in
  // shared memory: the record's state byte names the window, its bounds are generic addresses.
  const char* module = R"(.version 8.0
.target sm_90
.address_size 64
.func fill(.param .b64 fill_param_0, .param .b32 fill_param_1)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [fill_param_0];
	ld.param.u32 %r1, [fill_param_1];
	mul.wide.s32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	.loc 1 3 5
	st.u32 [%rd3], %r1;
	ret;
}
	.file 1 "/src/fill.cu"
)";
  SiteTable t = instrumentedSites(module);
  REQUIRE(t.sites.size() == 1);
  const Site& site = t.sites[0];
  CHECK(site.space == "generic");
  CHECK(!site.inWindow());
  auto r = record(0, 4, abi::kAccessWrite, 0x7ff200001410ull, 0x7ff200000380ull, 0x1080,
                  abi::kMetaStateSharedWindow << abi::kMetaStateShift);
  CHECK(checkedAgainstSharedWindow(r));
  Violation v = fromRecord(r, &site, "fill.cu", nullptr);
  CHECK(v.kind == ViolationKind::OutOfBounds);
  Metadata m;
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds write of 4 bytes in shared memory at 0x00007ff200001410") != std::string::npos);
  CHECK(text.find("device function fill") != std::string::npos);
  CHECK(text.find("address is 16 bytes after the end of this block's shared memory (4224 bytes at this launch, "
                  "static and dynamic, from 0x00007ff200000380)") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["window"]["space"] == "shared");
  CHECK(j["window"]["size"] == 4224);
  CHECK(j["window"]["offset"] == 4240);
  CHECK(!j.contains("object"));
  CHECK(!j.contains("allocation"));
  // An ordinary record is not the window's.
  CHECK(!checkedAgainstSharedWindow(record(0, 4, abi::kAccessWrite, 0x10, 0, 8, abi::kBstLive << abi::kMetaStateShift)));
}

TEST_CASE("an out-of-bounds record reads as the report a user expects", "[runtime]") {
  Metadata m;
  uint64_t base = 0x7f5b67e00000ull;
  uint64_t p = m.onAllocate(base, 1000, MemoryKind::Device, {0x1234});
  Site site = siteAt("_Z10write_pastPfi", "/src/oob.cu", 4, 3, 43, "st.global.u32 [%rd4], %r6;", true);
  uint32_t meta = uint32_t(tagOf(p)) << abi::kMetaTagShift | abi::kBstLive << abi::kMetaStateShift |
                  uint32_t(tagOf(p)) << abi::kMetaPointerTagShift;
  auto r = record(0, 4, abi::kAccessWrite, base + 1000, base, 1000, meta);
  Violation v = fromRecord(r, &site, "oob.cu (compute_90)", m.findChecked(r.base, r.size, tagOf(p)));
  CHECK(v.kind == ViolationKind::OutOfBounds);
  CHECK(v.pointerTag == tagOf(p));
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.rfind("cucatch: ERROR: out-of-bounds write of 4 bytes at 0x00007f5b67e003e8\n", 0) == 0);
  CHECK(text.find("in kernel write_past(float*, int) at block (2,0,0) thread (31,0,0)") != std::string::npos);
  CHECK(text.find("at /src/oob.cu:4:3 (PTX line 43 of oob.cu (compute_90)") != std::string::npos);
  CHECK(text.find("0 bytes after the end of a 1000-byte device allocation at 0x00007f5b67e00000") != std::string::npos);
  CHECK(text.find("#0 frame4660") != std::string::npos);
  CHECK(everyLineIsCucatch(text));
  auto j = toJson(v, fakeSymbol);
  CHECK(j["kind"] == "out-of-bounds");
  CHECK(j["kernel"] == "write_past(float*, int)");
  CHECK(j["line"] == 4);
  CHECK(j["allocation"]["offset"] == 1000);
  CHECK(j["allocation"]["memory"] == "device");
}

TEST_CASE("an access in the null page, checked against entry 0, is a null-pointer dereference", "[runtime]") {
  Metadata m;
  // What the device records: the access of 4 bytes at offset 12 from null, checked against the
  // unknown-memory entry (whose bounds are those of the BST's entry 0).
  const abi::BstEntry& unknown = m.bst()[0];
  uint32_t meta = abi::kBstLive << abi::kMetaStateShift;
  Site site = siteAt("_Z4walkP4Node", "/src/list.cu", 9, 5, 30, "ld.global.u32 %r2, [%rd3+12];", true);
  auto r = record(0, 4, abi::kAccessRead, 12, unknown.base, unknown.size, meta);
  Violation v = fromRecord(r, &site, "list.cu (compute_90)", m.findChecked(r.base, r.size, 0));
  CHECK(v.kind == ViolationKind::NullPointer);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.rfind("cucatch: ERROR: null-pointer-dereference read of 4 bytes at 0x000000000000000c\n", 0) == 0);
  CHECK(text.find("in kernel walk(Node*) at block (2,0,0) thread (31,0,0)") != std::string::npos);
  CHECK(text.find("address is 12 bytes from null") != std::string::npos);
  CHECK(text.find("no longer known") == std::string::npos);
  CHECK(everyLineIsCucatch(text));
  auto j = toJson(v, fakeSymbol);
  CHECK(j["kind"] == "null-pointer-dereference");
  CHECK(j["offset_from_null"] == 12);
  CHECK(j["line"] == 9);
  // The same entry far from null is an ordinary (top-of-memory) overflow, not a null access.
  auto top = record(0, 8, abi::kAccessRead, 0xFFFFFFFFFFFFFFFCull, unknown.base, unknown.size, meta);
  CHECK(fromRecord(top, &site, "list.cu", nullptr).kind == ViolationKind::OutOfBounds);
}

TEST_CASE("a violation in a device function names the function, where it was inlined, and the kernel", "[runtime]") {
  Metadata m;
  uint64_t base = 0x7f5b67e00000ull;
  m.onAllocate(base, 64, MemoryKind::Device);
  Site site = siteAt("_Z5storePdid", "/usr/include/atomic.hpp", 112, 10, 50, "atom.global.add.u32 %r1, [%rd1], 1;",
                     false, "/src/k.cu", 9, 5);
  auto r = record(0, 4, abi::kAccessAtomic, base + 64, base, 64, abi::kBstLive << abi::kMetaStateShift);
  Violation v = fromRecord(r, &site, "k.cu", m.findChecked(base, 64, 0));
  v.kernels = {"_Z6callerPdi"};
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("in device function store(double*, int, double), called from kernel caller(double*, int)") !=
        std::string::npos);
  CHECK(text.find("at /usr/include/atomic.hpp:112:10, inlined into /src/k.cu:9:5 (PTX line 50") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["kernel"] == "caller(double*, int)");
  CHECK(j["function"] == "store(double*, int, double)");
  CHECK(j["inlined_at"]["line"] == 9);
  v.kernels.push_back("_Z5otherv");
  CHECK(formatText(v, m, fakeSymbol).find("called from one of the kernels caller(double*, int), other()") !=
        std::string::npos);
  CHECK(toJson(v, fakeSymbol).count("kernel") == 0);
}

TEST_CASE("a stale pointer into memory reallocated at the same address names the freed allocation", "[runtime]") {
  Metadata m;
  uint64_t base = 0x7f5b67e00000ull;
  uint64_t old = m.onAllocate(base, 256, MemoryKind::Device, {1});
  m.onFree(old, {2});
  uint64_t fresh = m.onAllocate(base, 256, MemoryKind::Device, {3});
  REQUIRE(tagOf(fresh) != tagOf(old));
  const Allocation* a = m.findChecked(base, 256, tagOf(old));
  REQUIRE(a);
  CHECK_FALSE(a->live);
  CHECK(a->freedAt == Backtrace{2});
  uint32_t meta = abi::kMetaVerdictBad | uint32_t(tagOf(old)) << abi::kMetaTagShift |
                  abi::kBstFreed << abi::kMetaStateShift;
  Violation v = fromRecord(record(0, 8, abi::kAccessRead, base + 8, base, 256, meta), nullptr, "m", a);
  CHECK(v.kind == ViolationKind::UseAfterFree);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.rfind("cucatch: ERROR: use-after-free read of 8 bytes", 0) == 0);
  CHECK(text.find("freed at:\ncucatch:     #0 frame2") != std::string::npos);
  CHECK(everyLineIsCucatch(text));
}

TEST_CASE("identical violations of one site fold into one report", "[runtime]") {
  Site s = siteAt("k", "", 0, 0, 9, "st.global.u32 [%rd1], %r1;", true);
  std::vector<Violation> vs(5);
  for (auto& v : vs) v.site = &s;
  vs[4].kind = ViolationKind::UseAfterFree;
  auto folded = fold(vs);
  REQUIRE(folded.size() == 2);
  CHECK(folded[0].repeats == 3);
}

TEST_CASE("double and invalid frees are reported with both sites", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(0x7f5b67e00000ull, 64, MemoryKind::Device, {10});
  m.onFree(p, {11});
  auto again = m.onFree(p, {12});
  REQUIRE(again.status == FreeStatus::DoubleFree);
  Violation v;
  v.kind = ViolationKind::DoubleFree;
  v.address = untag(p);
  v.allocation = again.allocation;
  v.backtrace = {12};
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.rfind("cucatch: ERROR: double-free of 0x00007f5b67e00000\n", 0) == 0);
  CHECK(text.find("first freed at:\ncucatch:     #0 frame11") != std::string::npos);
  CHECK(everyLineIsCucatch(text));
}

TEST_CASE("CUCATCH_* options: defaults, values, and clear errors", "[runtime]") {
  Options o = Options::defaults();
  CHECK(o.mode == "abort");
  CHECK(o.tags);
  CHECK(o.errorExitCode == 1);
  CHECK(o.maxErrors == 4096);
  std::map<std::string, std::string> env{{"CUCATCH_MODE", "continue"}, {"CUCATCH_TAGS", "0"},
                                         {"CUCATCH_REPORT", "json:/tmp/r.json"}, {"CUCATCH_ERROR_EXITCODE", "7"}};
  auto lookup = [&](const char* n) -> const char* { return env.count(n) ? env[n].c_str() : nullptr; };
  CHECK(o.load(lookup).empty());
  CHECK(o.continueMode());
  CHECK(!o.tags);
  CHECK(o.jsonReportPath() == "/tmp/r.json");
  CHECK(o.errorExitCode == 7);
  env = {{"CUCATCH_MODE", "sometimes"}};
  CHECK(Options::defaults().load(lookup) == "CUCATCH_MODE=sometimes: expected abort or continue");
  env = {{"CUCATCH_TAGS", "maybe"}};
  CHECK(Options::defaults().load(lookup) == "CUCATCH_TAGS=maybe: expected 1 or 0");
  env = {{"CUCATCH_LEAK_CHECK", "maybe"}};
  CHECK(Options::defaults().load(lookup) == "CUCATCH_LEAK_CHECK=maybe: expected 1 or 0");
  env = {{"CUCATCH_REPORT", "xml:/tmp/x"}};
  CHECK(Options::defaults().load(lookup) == "CUCATCH_REPORT=xml:/tmp/x: expected json:PATH");
  env = {{"CUCATCH_MAX_ERRORS", "12abc"}};
  CHECK(Options::defaults().load(lookup) == "CUCATCH_MAX_ERRORS=12abc: expected an integer");
  CHECK(optionTable().size() >= 9);
}

TEST_CASE("device-heap violations name the block, its malloc and its free", "[runtime]") {
  // What the runtime knows of a block from the record and the heap log (Runtime::heapBlockOf).
  Site mallocSite;
  mallocSite.function = "_Z4makev";
  mallocSite.entry = true;
  mallocSite.file = "/src/heap.cu";
  mallocSite.line = 12;
  mallocSite.space = "heap";
  Site freeSite = mallocSite;
  freeSite.line = 15;
  Site access = mallocSite;
  access.line = 20;
  access.space = "generic";
  const uint8_t tag = 19;
  const uint64_t base = 0x7f0000001000;
  DeviceHeapBlock block;
  block.base = base;
  block.size = 16;
  block.live = false;
  block.freedBefore = true;
  block.allocated = DeviceHeapCall{&mallocSite, "heap.cu", {0, 0, 0}, {3, 0, 0}};
  block.freed = DeviceHeapCall{&freeSite, "heap.cu", {1, 0, 0}, {4, 0, 0}};
  Metadata m;
  CHECK(isDeviceHeapTag(17));
  CHECK(isDeviceHeapTag(255));
  CHECK_FALSE(isDeviceHeapTag(16));
  CHECK_FALSE(isDeviceHeapTag(15));

  // A read through a pointer to the freed block: the entry's verdict is bad, its state freed.
  uint32_t freedMeta = abi::kMetaVerdictBad | uint32_t(tag) << abi::kMetaTagShift |
                       uint32_t(abi::kBstFreed) << abi::kMetaStateShift | uint32_t(tag) << abi::kMetaPointerTagShift;
  Violation v = fromRecord(record(0, 4, abi::kAccessRead, base + 4, base, 16, freedMeta), &access, "heap.cu", nullptr);
  v.heapBlock = block;
  CHECK(v.kind == ViolationKind::UseAfterFree);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(everyLineIsCucatch(text));
  CHECK(text.find("use-after-free read of 4 bytes in device heap memory at 0x00007f0000001004") != std::string::npos);
  CHECK(text.find("address is at offset 4 of the 16-byte device heap block at 0x00007f0000001000, freed") !=
        std::string::npos);
  CHECK(text.find("allocated by thread (3,0,0) of block (0,0,0) of kernel make() at /src/heap.cu:12") !=
        std::string::npos);
  CHECK(text.find("freed by thread (4,0,0) of block (1,0,0) of kernel make() at /src/heap.cu:15") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["heap_block"]["size"] == 16);
  CHECK(j["heap_block"]["offset"] == 4);
  CHECK(j["heap_block"]["live"] == false);
  CHECK(j["heap_block"]["allocated_by"]["line"] == 12);
  CHECK(j["heap_block"]["freed_by"]["thread"] == std::array<uint32_t, 3>{4, 0, 0});
  CHECK_FALSE(j["heap_block"].contains("log_reused"));

  // The tag's log pair was another block's by the time of the report (the tag given out again
  // before the records were read): neither call is named, and the report says why.
  DeviceHeapBlock reused = block;
  reused.allocated.reset();
  reused.freed.reset();
  reused.allocatedUnknown = reused.freedUnknown = true;
  v.heapBlock = reused;
  text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("allocated by (not known: the block's tag was given to another block before this report)") !=
        std::string::npos);
  CHECK(text.find("freed by (not known: the block's tag") != std::string::npos);
  CHECK(text.find("/src/heap.cu:12") == std::string::npos);
  j = toJson(v, fakeSymbol);
  CHECK(j["heap_block"]["log_reused"] == nlohmann::json::array({"malloc", "free"}));
  CHECK_FALSE(j["heap_block"].contains("allocated_by"));
  // Only the free event another block's (written late, after the next claim): the malloc is
  // named, the free is not, each said as it is.
  reused.allocated = block.allocated;
  reused.allocatedUnknown = false;
  v.heapBlock = reused;
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("allocated by thread (3,0,0) of block (0,0,0) of kernel make() at /src/heap.cu:12") !=
        std::string::npos);
  CHECK(text.find("freed by (not known: the block's tag") != std::string::npos);
  j = toJson(v, fakeSymbol);
  CHECK(j["heap_block"]["log_reused"] == nlohmann::json::array({"free"}));
  CHECK(j["heap_block"]["allocated_by"]["line"] == 12);

  // A block from the device runtime's cudaMalloc, an inline function of its header: the call's
  // line is the header's, and the program's line is where it was inlined.
  Site cudaMallocSite = mallocSite;
  cudaMallocSite.file = "/cuda/include/cuda_device_runtime_api.h";
  cudaMallocSite.line = 611;
  cudaMallocSite.inlinedFile = "/src/heap.cu";
  cudaMallocSite.inlinedLine = 9;
  DeviceHeapBlock fromCudaMalloc = block;
  fromCudaMalloc.allocated = DeviceHeapCall{&cudaMallocSite, "heap.cu", {0, 0, 0}, {3, 0, 0}};
  v.heapBlock = fromCudaMalloc;
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("allocated by thread (3,0,0) of block (0,0,0) of kernel make() at "
                  "/cuda/include/cuda_device_runtime_api.h:611, inlined into /src/heap.cu:9") != std::string::npos);
  j = toJson(v, fakeSymbol);
  CHECK(j["heap_block"]["allocated_by"]["inlined_at"]["line"] == 9);
  CHECK(j["heap_block"]["allocated_by"]["inlined_at"]["file"] == "/src/heap.cu");

  // The same block freed again: the free wrapper refused (access flag "free"), with the entry
  // freed and the pointer at the block's start.
  uint32_t refused = uint32_t(tag) << abi::kMetaTagShift | uint32_t(abi::kBstFreed) << abi::kMetaStateShift |
                     uint32_t(tag) << abi::kMetaPointerTagShift;
  v = fromRecord(record(1, 0, abi::kAccessFree, base, base, 16, refused), &freeSite, "heap.cu", nullptr);
  v.heapBlock = block;
  CHECK(v.kind == ViolationKind::DoubleFree);
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("double-free of 0x00007f0000001000 in device heap memory") != std::string::npos);
  CHECK(text.find("the 16-byte device heap block at 0x00007f0000001000, freed was freed before") == std::string::npos);
  CHECK(text.find("was freed before") != std::string::npos);
  CHECK(text.find("at /src/heap.cu:15") != std::string::npos);
  CHECK(text.find("the free was not made") != std::string::npos);
  j = toJson(v, fakeSymbol);
  CHECK(j["kind"] == "double-free");
  CHECK(j["line"] == 15);
  CHECK(j["kernel"] == "make()");

  // A pointer into the middle of a live block: an invalid free, which names the block (and no
  // free of it).
  block.live = true;
  block.freedBefore = false;
  uint32_t live = uint32_t(tag) << abi::kMetaTagShift | uint32_t(abi::kBstLive) << abi::kMetaStateShift |
                  uint32_t(tag) << abi::kMetaPointerTagShift;
  v = fromRecord(record(1, 0, abi::kAccessFree, base + 8, base, 16, live), &freeSite, "heap.cu", nullptr);
  v.heapBlock = block;
  CHECK(v.kind == ViolationKind::InvalidFree);
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("invalid-free of 0x00007f0000001008 in device heap memory") != std::string::npos);
  CHECK(text.find("the address is at offset 8 of the 16-byte device heap block") != std::string::npos);
  CHECK(text.find("freed by") == std::string::npos);
  CHECK_FALSE(toJson(v, fakeSymbol)["heap_block"].contains("freed_by"));

  // Device free of memory the host allocated (a tag the runtime gave): invalid, with the allocation.
  uint64_t p = m.onAllocate(0x7f0000100000, 256, MemoryKind::Device);
  auto view = m.deviceView(p);
  uint32_t hostMeta = uint32_t(view.entry.tag) << abi::kMetaTagShift | uint32_t(view.entry.state) << abi::kMetaStateShift |
                      uint32_t(p >> abi::kTagShift) << abi::kMetaPointerTagShift;
  const Allocation* a = m.findChecked(view.entry.base, view.entry.size, view.entry.tag);
  REQUIRE(a);
  v = fromRecord(record(1, 0, abi::kAccessFree, 0x7f0000100000, view.entry.base, view.entry.size, hostMeta), &freeSite,
                 "heap.cu", a);
  CHECK(v.kind == ViolationKind::InvalidFree);
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("not a block of the device heap") != std::string::npos);
}

TEST_CASE("a local-memory violation names the frame, or the array of it", "[runtime]") {
  Site site;
  site.function = "_Z10window_sumPKiiPi";
  site.entry = true;
  site.space = "local";
  site.object = "__local_depot0";
  site.objectSpace = "local";
  site.objectBytes = 32;
  Metadata m;
  CHECK(site.inWindow());
  // A kernel's frame starts at local address 0: index -1 wraps to the top of the range.
  auto r = record(0, 4, abi::kAccessRead, 0xFFFFFFFFFFFFFFFCull, 0, 32, abi::kBstLive << abi::kMetaStateShift);
  Violation v = fromRecord(r, &site, "k.cu", nullptr);
  CHECK(v.kind == ViolationKind::OutOfBounds);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds read of 4 bytes in local memory") != std::string::npos);
  CHECK(text.find("address is 4 bytes before the 32-byte local frame of window_sum(int const*, int, int*) "
                  "('__local_depot0': its local arrays, which cucatch does not tell apart)") != std::string::npos);
  CHECK(toJson(v, fakeSymbol)["object"]["offset"] == -4);
  // One array of the frame (--local-objects): the record's bounds are the array's.
  site.objectFrameArray = true;
  site.objectFrameOffset = 32;
  site.objectBytes = 32;
  r = record(0, 4, abi::kAccessWrite, 64, 32, 32, abi::kBstLive << abi::kMetaStateShift);
  v = fromRecord(r, &site, "k.cu", nullptr);
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("address is 0 bytes after the end of the 32-byte local array at frame offset 32 of window_sum") !=
        std::string::npos);
  CHECK(toJson(v, fakeSymbol)["object"]["frame_offset"] == 32);
  // Past the frame's end (64 bytes): no word of a neighbouring array.
  site.objectFrameBytes = 64;
  text = formatText(fromRecord(r, &site, "k.cu", nullptr), m, fakeSymbol);
  CHECK(text.find("another of its arrays") == std::string::npos);
  // From the array at 0 into the one at 32: said so, with the way back to whole frames.
  site.objectFrameOffset = 0;
  r = record(0, 4, abi::kAccessWrite, 36, 0, 32, abi::kBstLive << abi::kMetaStateShift);
  text = formatText(fromRecord(r, &site, "k.cu", nullptr), m, fakeSymbol);
  INFO(text);
  CHECK(text.find("address is 4 bytes after the end of the 32-byte local array at frame offset 0 of window_sum") !=
        std::string::npos);
  CHECK(text.find("(at offset 36 of the same 64-byte frame, in another of its arrays.") != std::string::npos);
  CHECK(text.find("CUCATCH_PTX_FLAGS=--no-local-objects") != std::string::npos);
  auto j = toJson(fromRecord(r, &site, "k.cu", nullptr), fakeSymbol);
  CHECK(j["object"]["neighbour"]["frame_offset"] == 36);
  CHECK(j["object"]["neighbour"]["frame_bytes"] == 64);
  // An 8-byte read that starts in its own array and runs past its end: an overflow of that
  // array, not an access of the other one (a review's find).
  r = record(0, 8, abi::kAccessRead, 28, 0, 32, abi::kBstLive << abi::kMetaStateShift);
  text = formatText(fromRecord(r, &site, "k.cu", nullptr), m, fakeSymbol);
  CHECK(text.find("another of its arrays") == std::string::npos);
  CHECK_FALSE(toJson(fromRecord(r, &site, "k.cu", nullptr), fakeSymbol)["object"].contains("neighbour"));
  // An 8-byte write from the array at 0 that lands in the other array and runs past the frame's
  // end: an overflow of the frame, which whole-frame checks report too.
  r = record(0, 8, abi::kAccessWrite, 60, 0, 32, abi::kBstLive << abi::kMetaStateShift);
  text = formatText(fromRecord(r, &site, "k.cu", nullptr), m, fakeSymbol);
  CHECK(text.find("another of its arrays") == std::string::npos);
}

TEST_CASE("a violation of a block alloca made names it, with its size at run time", "[runtime]") {
  Site site;
  site.function = "_Z7scratchi";
  site.space = "local";
  site.object = "alloca";
  site.objectSpace = "local";
  site.objectDynamic = true;
  Metadata m;
  // The block at local address 0xfffc80 of 20 bytes (the record's bounds); a write at its end.
  auto r = record(0, 4, abi::kAccessWrite, 0xfffc94, 0xfffc80, 20, abi::kBstLive << abi::kMetaStateShift);
  Violation v = fromRecord(r, &site, "k.cu", nullptr);
  CHECK(v.kind == ViolationKind::OutOfBounds);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds write of 4 bytes in local memory") != std::string::npos);
  CHECK(text.find("address is 0 bytes after the end of the 20-byte block alloca'd by scratch(int) (the size it "
                  "asked for at this call)") != std::string::npos);
  CHECK(toJson(v, fakeSymbol)["object"]["size"] == 20);
  CHECK(toJson(v, fakeSymbol)["object"]["name"] == "alloca");
}

// A site table as an instrumented module of this runtime's ABI carries it: `rest` is the JSON
// object's members after "abi".
static SiteTable sitesOfThisAbi(const std::string& rest) {
  return SiteTable::parse(fmt::format(R"({{"abi": {}, )", abi::kAbiVersion) + rest);
}

TEST_CASE("a callee's violation names the variable whose bounds its caller passed", "[runtime]") {
  // The unit's objects, as the site table carries them; the callee's site names none.
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z4fillPfif",
          "entry": false, "ptx_line": 9, "file": 0, "line": 0, "column": 0, "instruction": "st.f32 [%rd3], %f1;",
          "kind": "write", "size": 4, "space": "generic"}],
          "objects": [{"function": "", "entry": false, "object": {"name": "_ZZ9two_tilesPKfPfiE2lo", "bytes": 128,
          "dynamic": false, "space": "shared"}}]})");
  REQUIRE(t.objects.size() == 1);
  CHECK(t.objects[0].objectSpace == "shared");
  Metadata m;
  // The record: the array's bounds (generic addresses), state kMetaStateVariable, object 1.
  uint32_t meta = abi::kMetaStateVariable << abi::kMetaStateShift | 1u << abi::kMetaTagShift;
  auto r = record(0, 4, abi::kAccessWrite, 0x7f0000000480, 0x7f0000000400, 128, meta);
  Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
  v.passedObject = &t.objects[0];
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds write of 4 bytes in shared memory") != std::string::npos);
  CHECK(text.find("address is 0 bytes after the end of the 128-byte shared array 'two_tiles(float const*, float*, "
                  "int)::lo' (__shared__), whose bounds device function fill(float*, int, float) was given with the "
                  "pointer") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["object"]["name"] == "two_tiles(float const*, float*, int)::lo");
  CHECK(j["object"]["passed_by_caller"] == true);
}

TEST_CASE("a pointer given an array of a frame names it, and says where in the frame an overflow landed", "[runtime]") {
  // The kernel's two 32-byte arrays of its 64-byte frame, as the site table's objects carry them;
  // the callee's store and the kernel's read (through a pointer made from either array) name none.
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z6triplePii",
          "entry": false, "ptx_line": 9, "file": 0, "line": 0, "column": 0, "instruction": "st.u32 [%rd3], %r1;",
          "kind": "write", "size": 4, "space": "generic"}, {"id": 1, "function": "_Z8two_rowsPii", "entry": true,
          "ptx_line": 30, "file": 0, "line": 0, "column": 0, "instruction": "ld.u32 %r3, [%rd6];", "kind": "read",
          "size": 4, "space": "generic", "own_frame_object": true}],
          "objects": [{"function": "_Z8two_rowsPii", "entry": true, "object": {"name": "__local_depot1", "bytes": 32,
          "dynamic": false, "space": "local", "frame_offset": 0, "frame_bytes": 64}},
          {"function": "_Z8two_rowsPii", "entry": true, "object": {"name": "__local_depot1", "bytes": 32,
          "dynamic": false, "space": "local", "frame_offset": 32, "frame_bytes": 64}}]})");
  REQUIRE(t.objects.size() == 2);
  Metadata m;
  // The callee writes one element past the first array (generic addresses): into the second.
  uint32_t first = abi::kMetaStateVariable << abi::kMetaStateShift | 1u << abi::kMetaTagShift;
  auto r = record(0, 4, abi::kAccessWrite, 0x7f0000fffca0 + 32, 0x7f0000fffca0, 32, first);
  Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
  v.passedObject = &t.objects[0];
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("out-of-bounds write of 4 bytes in local memory") != std::string::npos);
  CHECK(text.find("address is 0 bytes after the end of the 32-byte local array at frame offset 0 of "
                  "two_rows(int*, int) ('__local_depot1', its arrays told apart where nvcc starts them), whose bounds "
                  "device function triple(int*, int) was given with the pointer") != std::string::npos);
  CHECK(text.find("(at offset 32 of the same 64-byte frame, in another of its arrays.") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["object"]["frame_offset"] == 0);
  CHECK(j["object"]["neighbour"]["frame_offset"] == 32);
  CHECK(j["object"]["passed_by_caller"] == true);
  // The kernel's own read (through a pointer made from either array: the site says the bounds'
  // object is its own frame's), below the second array, into the first: not passed.
  uint32_t second = abi::kMetaStateVariable << abi::kMetaStateShift | 2u << abi::kMetaTagShift;
  r = record(1, 4, abi::kAccessRead, 0x7f0000fffca0 + 28, 0x7f0000fffca0 + 32, 32, second);
  v = fromRecord(r, &t.sites[1], "m.cu", nullptr);
  v.passedObject = &t.objects[1];
  text = formatText(v, m, fakeSymbol);
  CHECK(text.find("address is 4 bytes before the 32-byte local array at frame offset 32 of two_rows(int*, int) "
                  "('__local_depot1', its arrays told apart where nvcc starts them)\n") != std::string::npos);
  CHECK(text.find("given with the pointer") == std::string::npos);
  CHECK(text.find("(at offset 28 of the same 64-byte frame, in another of its arrays.") != std::string::npos);
  j = toJson(v, fakeSymbol);
  CHECK(j["object"]["neighbour"]["frame_offset"] == 28);
  CHECK_FALSE(j["object"].contains("passed_by_caller"));
}

TEST_CASE("a local address outside a kernel's own frame is a use after scope", "[runtime]") {
  // A kernel read through the pointer a device function kept to its own local array: the
  // record's bounds are the kernel's frame (generic addresses), state kMetaStateLiveFrames,
  // object 1.
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z1kPi",
          "entry": true, "ptx_line": 40, "file": 0, "line": 0, "column": 0, "instruction": "ld.u32 %r2, [%rd2+8];",
          "kind": "read", "size": 4, "space": "generic"}],
          "objects": [{"function": "_Z1kPi", "entry": true, "object": {"name": "__local_depot1", "bytes": 16,
          "dynamic": false, "space": "local"}}]})");
  Metadata m;
  uint32_t meta = abi::kMetaStateLiveFrames << abi::kMetaStateShift | 1u << abi::kMetaTagShift;
  for (uint64_t address : {0x7f5839fffb88ull, 0x7f5839fffd40ull}) {  // below the frame, above it
    auto r = record(0, 4, abi::kAccessRead, address, 0x7f5839fffca0, 16, meta);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.liveFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::UseAfterScope);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("use-after-scope read of 4 bytes in local memory") != std::string::npos);
    CHECK(text.find("the 16-byte local frame of k(int*) ('__local_depot1'), the only local memory live in the kernel") !=
          std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["kind"] == "use-after-scope");
    CHECK(j["live_frame"]["function"] == "k(int*)");
    CHECK(j["live_frame"]["offset"] == static_cast<int64_t>(address - 0x7f5839fffca0));
    CHECK_FALSE(j.contains("allocation"));
  }
  auto below = record(0, 4, abi::kAccessRead, 0x7f5839fffb88, 0x7f5839fffca0, 16, meta);
  CHECK(formatText(fromRecord(below, &t.sites[0], "m.cu", nullptr), m, fakeSymbol).find("address is 280 bytes before") !=
        std::string::npos);
}

TEST_CASE("a kernel with no local memory of its own meets only local addresses of returned frames", "[runtime]") {
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z1kPi",
          "entry": true, "ptx_line": 40, "file": 0, "line": 0, "column": 0, "instruction": "ld.u32 %r2, [%rd2+8];",
          "kind": "read", "size": 4, "space": "generic"}], "objects": []})");
  Metadata m;
  auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffb88, abi::kNoLiveLocal, 0,
                  abi::kMetaStateLiveFrames << abi::kMetaStateShift);
  Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
  CHECK(v.kind == ViolationKind::UseAfterScope);
  std::string text = formatText(v, m, fakeSymbol);
  INFO(text);
  CHECK(text.find("the address is in local memory, and k(int*) has no local memory of its own") != std::string::npos);
  auto j = toJson(v, fakeSymbol);
  CHECK(j["live_frame"]["no_local_memory"] == true);
  CHECK(j["live_frame"]["function"] == "k(int*)");
}

TEST_CASE("a device function's frame table: a returned frame, none, and a live frame overrun", "[runtime]") {
  // A device function read through a pointer of unknown origin that its thread's frame table
  // placed in a frame: returned (bad verdict, the frame's bounds), in none (bad verdict, an
  // empty range at kNoLiveLocal), or live (verdict 0: an access outside is out of bounds).
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z9read_kepti",
          "entry": false, "ptx_line": 40, "file": 0, "line": 0, "column": 0, "instruction": "ld.u32 %r4, [%rd4+12];",
          "kind": "read", "size": 4, "space": "generic"}],
          "objects": [{"function": "_Z13fill_and_keepi", "entry": false, "object": {"name": "__local_depot0",
          "bytes": 128, "dynamic": false, "space": "local"}}]})");
  Metadata m;
  const uint32_t state = abi::kMetaStateFrameTable << abi::kMetaStateShift;
  {
    auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffc2c, 0x7f5839fffc20, 128, state | 1u << abi::kMetaTagShift | 1);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.tableFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::UseAfterScope);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("use-after-scope read of 4 bytes in local memory") != std::string::npos);
    CHECK(text.find("address is at offset 12 of the 128-byte local frame of fill_and_keep(int) ('__local_depot0': its "
                    "local arrays, which cucatch does not tell apart), which has returned") != std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["kind"] == "use-after-scope");
    CHECK(j["table_frame"]["returned"] == true);
    CHECK(j["table_frame"]["function"] == "fill_and_keep(int)");
    CHECK(j["table_frame"]["offset"] == 12);
    CHECK_FALSE(j.contains("allocation"));
    CHECK_FALSE(j.contains("object"));
  }
  {
    auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffc2c, abi::kNoLiveLocal, 0, state | 1);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    CHECK(v.kind == ViolationKind::UseAfterScope);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("in no frame live on this thread's stack") != std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["table_frame"]["returned"] == true);
    CHECK_FALSE(j["table_frame"].contains("function"));
  }
  {
    auto r = record(0, 4, abi::kAccessWrite, 0x7f5839fffca0, 0x7f5839fffc20, 128, state | 1u << abi::kMetaTagShift);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.tableFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::OutOfBounds);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("out-of-bounds write of 4 bytes in local memory") != std::string::npos);
    CHECK(text.find("address is 0 bytes after the end of the 128-byte local frame of fill_and_keep(int)") !=
          std::string::npos);
    CHECK(text.find("live on this thread's stack (the pointer's origin is not known in read_kept(int)") !=
          std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["table_frame"]["returned"] == false);
    CHECK(j["table_frame"]["name"] == "__local_depot0");
    CHECK_FALSE(j["table_frame"].contains("reused"));
  }
  {
    // Inside a live frame whose serial is not the pointer's frame tag; the pointer's frame, which
    // returned, as the table kept it when a later call's push wrote over its entry.
    const uint32_t overwritten = abi::kMetaStateFrameOverwritten << abi::kMetaStateShift;
    auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffc2c, 0x7f5839fffc20, 128,
                    overwritten | 1u << abi::kMetaTagShift | 1);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.tableFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::UseAfterScope);
    CHECK(v.frameReused);
    CHECK_FALSE(v.reusedFrameLive);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("address is at offset 12 of the 128-byte local frame of fill_and_keep(int) ('__local_depot0': its "
                    "local arrays, which cucatch does not tell apart), which has returned, and a later call's frame "
                    "now lies where it was") != std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["table_frame"]["returned"] == true);
    CHECK(j["table_frame"]["reused"] == true);
    CHECK_FALSE(j["table_frame"].contains("live"));
    CHECK(j["table_frame"]["function"] == "fill_and_keep(int)");
  }
  {
    // ... where the table no longer held it: the live frame, a later call's.
    const uint32_t reused = abi::kMetaStateFrameReused << abi::kMetaStateShift;
    auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffc2c, 0x7f5839fffc20, 128, reused | 1u << abi::kMetaTagShift | 1);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.tableFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::UseAfterScope);
    CHECK(v.frameTable);
    CHECK(v.frameReused);
    CHECK(v.reusedFrameLive);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("use-after-scope read of 4 bytes in local memory") != std::string::npos);
    CHECK(text.find("address is at offset 12 of the 128-byte local frame of fill_and_keep(int) ('__local_depot0': its "
                    "local arrays, which cucatch does not tell apart), live on this thread's stack, but the pointer "
                    "was not made in it: the frame the pointer was made in has returned, and a later call's frame "
                    "lies where it was") != std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["table_frame"]["returned"] == true);
    CHECK(j["table_frame"]["reused"] == true);
    CHECK(j["table_frame"]["live"] == true);
    CHECK(j["table_frame"]["function"] == "fill_and_keep(int)");
  }
}

TEST_CASE("a frame table narrowed to one array: an overrun into its neighbour, a returned array", "[runtime]") {
  // The lookup narrowed the frame to the array the pointer was in (the unit's table of frame
  // arrays): the tag byte names that array, an object with its place in the frame.
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z11fill_handedi",
          "entry": false, "ptx_line": 40, "file": 0, "line": 0, "column": 0, "instruction": "st.u32 [%rd4], %r4;",
          "kind": "write", "size": 4, "space": "generic"}],
          "objects": [{"function": "_Z5owneri", "entry": false, "object": {"name": "__local_depot1",
          "bytes": 64, "dynamic": false, "space": "local", "frame_offset": 0, "frame_bytes": 128}}]})");
  Metadata m;
  const uint32_t state = abi::kMetaStateFrameTable << abi::kMetaStateShift;
  {
    // A write one past the array, into the other array of the same live frame.
    auto r = record(0, 4, abi::kAccessWrite, 0x7f5839fffc60, 0x7f5839fffc20, 64, state | 1u << abi::kMetaTagShift);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.tableFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::OutOfBounds);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("address is 0 bytes after the end of the 64-byte local array at frame offset 0 of owner(int) "
                    "('__local_depot1', its arrays told apart where nvcc starts them), live on this thread's stack") !=
          std::string::npos);
    CHECK(text.find("(at offset 64 of the same 128-byte frame, in another of its arrays.") != std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["table_frame"]["function"] == "owner(int)");
    CHECK(j["table_frame"]["array"]["frame_offset"] == 0);
    CHECK(j["table_frame"]["array"]["size"] == 64);
    CHECK(j["table_frame"]["array"]["neighbour"]["frame_offset"] == 64);
    CHECK(j["table_frame"]["array"]["neighbour"]["frame_bytes"] == 128);
  }
  {
    // A read through a stale pointer into that array, whose frame has returned.
    auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffc2c, 0x7f5839fffc20, 64, state | 1u << abi::kMetaTagShift | 1);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    v.tableFrame = &t.objects[0];
    CHECK(v.kind == ViolationKind::UseAfterScope);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("address is at offset 12 of the 64-byte local array at frame offset 0 of owner(int) "
                    "('__local_depot1', its arrays told apart where nvcc starts them), which has returned") !=
          std::string::npos);
    CHECK(text.find("in another of its arrays") == std::string::npos);
    auto j = toJson(v, fakeSymbol);
    CHECK(j["table_frame"]["returned"] == true);
    CHECK(j["table_frame"]["array"]["frame_offset"] == 0);
    CHECK_FALSE(j["table_frame"]["array"].contains("neighbour"));
  }
  {
    // At the boundary of two arrays: both, no object.
    auto r = record(0, 4, abi::kAccessRead, 0x7f5839fffca0, 0x7f5839fffc20, 128, state);
    Violation v = fromRecord(r, &t.sites[0], "m.cu", nullptr);
    std::string text = formatText(v, m, fakeSymbol);
    INFO(text);
    CHECK(text.find("0 bytes after the end of the 128 bytes of local memory at 0x00007f5839fffc20 (an alloca'd "
                    "block, or two frames or two arrays of a frame whose boundary the pointer was at)") !=
          std::string::npos);
    CHECK(toJson(v, fakeSymbol)["table_frame"]["unnamed"] == true);
  }
}

TEST_CASE("a site table gives the stack a kernel that recurses needs", "[runtime]") {
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {"_Z3recv": {"registers": 30, "stack":
          {"ratio_per_mille": 1500, "extra_bytes": 128}}, "_Z4flatv": {}}, "sites": [], "objects": []})");
  REQUIRE(t.kernels.count("_Z3recv"));
  CHECK(t.kernels["_Z3recv"].stackRatioPerMille == 1500u);
  CHECK(t.kernels["_Z3recv"].stackExtraBytes == 128u);
  CHECK_FALSE(t.kernels["_Z4flatv"].stackRatioPerMille);
}

TEST_CASE("a site table gives a local array's place and its frame's size", "[runtime]") {
  SiteTable t = sitesOfThisAbi(
      R"("module": "m.cu", "unit": 1, "files": {}, "kernels": {}, "sites": [{"id": 0, "function": "_Z1kPi",
          "entry": true, "ptx_line": 9, "file": 0, "line": 0, "column": 0, "instruction": "st.local.u32 [%rd3], %r1;",
          "kind": "write", "size": 4, "space": "local", "object": {"name": "__local_depot0", "bytes": 64,
          "dynamic": false, "space": "local", "frame_offset": 64, "frame_bytes": 192}}]})");
  REQUIRE(t.sites.size() == 1);
  CHECK(t.sites[0].objectFrameArray);
  CHECK(t.sites[0].objectFrameOffset == 64);
  CHECK(t.sites[0].objectFrameBytes == 192);
  CHECK(t.sites[0].objectBytes == 64);
}

TEST_CASE("relocatable code: each unit carries its part of the call graph, the runtime joins them", "[runtime]") {
  // The rewrite of a relocatable unit: a kernel and a .visible recursive function, whose body
  // becomes private (down__cc_body, no linkage) with down's original frame.
  auto parsed = cucatch::ptx::parseModule(R"(.version 8.0
.target sm_90
.address_size 64
.extern .func walk();
.visible .func down()
{
call.uni down, ();
call.uni walk, ();
ret;
}
.visible .entry k()
{
call.uni down, ();
ret;
}
)",
                                          "a.ptx");
  REQUIRE(parsed.ok());
  cucatch::instrument::InstrumentOptions options;
  options.launchMetadata = false;
  cucatch::instrument::RegisterLimitSetup setup;
  setup.limits = *cucatch::instrument::registerFileLimits("sm_90");
  setup.relocatable = true;
  setup.measureInstrumented = [](const cucatch::ptx::Module&) {
    return cucatch::instrument::PtxasCounts{{{"k", 20}, {"down", 20}, {"down__cc_body", 20}},
                                            {{"k", 112}, {"down", 8}, {"down__cc_body", 60}}};
  };
  setup.measureOriginal = [] {
    return cucatch::instrument::PtxasCounts{{{"k", 20}, {"down", 20}}, {{"k", 0}, {"down", 40}}};
  };
  options.registerLimit = setup;
  auto result = cucatch::instrument::instrumentModule(*parsed.module, options);
  SiteTable a = SiteTable::parse(cucatch::instrument::siteTableJson(*parsed.module, result));
  REQUIRE(a.callGraph.count("down__cc_body"));
  CHECK(a.callGraph["down__cc_body"].frame == 60);
  CHECK(a.callGraph["down__cc_body"].original == 40);
  CHECK(a.callGraph["down__cc_body"].callees == std::set<std::string>{"down__cc_body", "walk"});
  CHECK(a.localFunctions.count("down__cc_body"));
  CHECK(a.callGraph["k"].kernel);
  CHECK(a.callGraph["k"].callees == std::set<std::string>{"down__cc_body"});
  // Alone, the unit's kernel needs R = 60 / 40 and C = its own frame (walk is another unit's).
  auto alone = cucatch::callgraph::stackReserves(moduleCallGraph({{1, &a}}));
  REQUIRE(alone.kernels.count("k"));
  CHECK(alone.kernels["k"].ratioPerMille == 1500);
  CHECK(alone.kernels["k"].extraBytes == 112);
  // Linked with the unit that defines walk, whose own `helper` has no linkage, and with one that
  // has a `helper` without linkage too: walk's frame and its unit's helper's are added whole; a
  // function of the same name without linkage in another unit is another function.
  SiteTable b = sitesOfThisAbi(R"("module": "b.cu", "unit": 2, "files": {}, "kernels": {}, "sites": [], "objects": [],
      "call_graph": {"walk": {"frame": 16, "original": 0, "calls": ["helper"]},
                     "helper": {"frame": 200, "original": 200, "local": true}}})");
  SiteTable c = sitesOfThisAbi(R"("module": "c.cu", "unit": 3, "files": {}, "kernels": {}, "sites": [], "objects": [],
      "call_graph": {"helper": {"frame": 900, "original": 0, "local": true},
                     "k2": {"frame": 0, "original": 0, "kernel": true, "calls": ["helper", "down__cc_meta"]},
                     "down__cc_meta": {"frame": 8, "original": 40, "calls": ["down__cc_meta"]}}})");
  auto graph = moduleCallGraph({{1, &a}, {2, &b}, {3, &c}});
  CHECK(graph.count("helper@00000002"));
  CHECK(graph.count("helper@00000003"));
  CHECK(graph["walk"].callees == std::set<std::string>{"helper@00000002"});
  auto linked = cucatch::callgraph::stackReserves(graph);
  REQUIRE(linked.kernels.count("k"));
  CHECK(linked.kernels["k"].ratioPerMille == 1500);
  CHECK(linked.kernels["k"].extraBytes == 112 + 16 + 200);
  // k2 reaches unit 3's helper, not unit 2's, and a recursive function whose frame shrank.
  REQUIRE(linked.kernels.count("k2"));
  CHECK(linked.kernels["k2"].extraBytes == 900);
  CHECK(linked.kernels["k2"].ratioPerMille == 1000);
  // Mutual recursion across units (a review's reproducer): each unit calls the other's function
  // through the entry point, and defines a .weak one of its own for it, which had no original
  // frame there: joined, the entry point is a forwarder (every definition is), so the cycle is
  // bounded, and the forwarders' frames count with each body's.
  SiteTable m1 = sitesOfThisAbi(R"("module": "m1.cu", "unit": 4, "files": {}, "kernels": {}, "sites": [], "objects": [],
      "call_graph": {"k": {"frame": 0, "original": 0, "kernel": true, "calls": ["f__cc_body"]},
                     "f__cc_body": {"frame": 100, "original": 80, "local": true, "calls": ["g__cc_meta"]},
                     "f__cc_meta": {"frame": 8, "original": 0, "forwarder": true, "calls": ["f__cc_body"]},
                     "g__cc_meta": {"frame": 8, "original": 0, "forwarder": true, "calls": ["g"]}}})");
  SiteTable m2 = sitesOfThisAbi(R"("module": "m2.cu", "unit": 5, "files": {}, "kernels": {}, "sites": [], "objects": [],
      "call_graph": {"g__cc_body": {"frame": 168, "original": 136, "local": true, "calls": ["f__cc_meta"]},
                     "g__cc_meta": {"frame": 8, "original": 0, "forwarder": true, "calls": ["g__cc_body"]},
                     "f__cc_meta": {"frame": 8, "original": 0, "forwarder": true, "calls": ["f"]}}})");
  auto mutual = cucatch::callgraph::stackReserves(moduleCallGraph({{4, &m1}, {5, &m2}}));
  CHECK(mutual.unbounded.empty());
  REQUIRE(mutual.kernels.count("k"));
  CHECK(mutual.kernels["k"].ratioPerMille == 1450);  // f's (100 + 8 + 8) / 80, above g's (168 + 16) / 136
}

TEST_CASE("reports name functions as source spells them, nvcc's clones too", "[runtime]") {
  CHECK(demangle("_Z3visPii") == "vis(int*, int)");
  // nvcc's copy of a function specialized for some of its callers (a review saw one in a report).
  CHECK(demangle("_Z3visPii$1") == "vis(int*, int) [clone $1]");
  CHECK(demangle("_Z3visPii$12") == "vis(int*, int) [clone $12]");
  // Not mangled, or not a clone's suffix: as it is.
  CHECK(demangle("kernel") == "kernel");
  CHECK(demangle("kernel$1") == "kernel$1");
  CHECK(demangle("_Z3visPii$") == "_Z3visPii$");
  CHECK(demangle("_Z3visPii$x1") == "_Z3visPii$x1");
}
