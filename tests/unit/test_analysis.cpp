// Analysis on small hand-written PTX functions: CFG, dominators and loops, memory spaces,
// and which base definitions reach each access.
#include <catch2/catch.hpp>

#include <set>

#include "analysis/AddressFamilies.h"
#include "analysis/CFG.h"
#include "analysis/FrameLayout.h"
#include "analysis/LaunchBounds.h"
#include "analysis/PointerAnalysis.h"
#include "analysis/SharedParts.h"
#include "analysis/ValueRange.h"
#include "ptx/InstrInfo.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

struct Analysed {
  Module module;
  const Function* function = nullptr;
  std::unique_ptr<CFG> cfg;
  std::unique_ptr<SymbolTable> symbols;
  std::unique_ptr<PointerAnalysis> pa;

  // The access made by the n-th instruction whose full opcode is `op`.
  const AccessSite& access(std::string_view op, int n = 0) const {
    for (const auto& a : pa->accesses())
      if (std::get<Instruction>(function->body[a.statement]).fullOpcode() == op && n-- == 0) return a;
    FAIL("no access " << op);
    throw;
  }
  // The definitions reaching an access, as "reg:origin" strings, for readable checks.
  std::vector<std::string> reaching(const AccessSite& a) const {
    std::vector<std::string> out;
    for (size_t d : a.reachingDefs) {
      const PointerDef& def = pa->defs()[d];
      out.push_back(def.reg + ":" + std::string(def.kind == DefKind::Integer ? "integer" : baseOriginName(def.origin)));
    }
    return out;
  }
  size_t statementOf(const PointerDef& d) const { return d.statement; }
};

// The frame layout of an analysed function (its value ranges serve only while it is made).
FrameLayout frameLayoutOf(const Analysed& a) {
  ValueRanges ranges(*a.function, *a.pa);
  return FrameLayout(*a.function, *a.pa, *a.symbols, ranges);
}

// The analysis of the last function of a whole module's text.
Analysed analyseModule(const std::string& text) {
  Analysed a;
  auto r = parseModule(text, "analysis.ptx");
  if (!r.ok()) FAIL(r.errors.front().str());
  a.module = std::move(*r.module);
  a.function = a.module.functions().back();
  a.cfg = std::make_unique<CFG>(*a.function);
  a.symbols = std::make_unique<SymbolTable>(functionSymbols(*a.function, moduleSymbols(a.module)));
  a.pa = std::make_unique<PointerAnalysis>(*a.function, *a.cfg, *a.symbols);
  return a;
}

Analysed analyse(const std::string& body, const std::string& globals = "") {
  return analyseModule(".version 8.0\n.target sm_80\n.address_size 64\n" + globals +
                       ".visible .entry k(.param .u64 p0, .param .u64 p1, .param .u32 n)\n{\n"
                       "\t.reg .pred %p<4>;\n\t.reg .b32 %r<24>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<16>;\n" +
                       body + "\tret;\n}\n");
}

}  // namespace

TEST_CASE("straight line: arithmetic on one base keeps it", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.s32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	add.s64 %rd5, %rd4, 16;
	st.global.f32 [%rd5+4], %f1;
)");
  CHECK(a.reaching(a.access("ld.global.f32")) == std::vector<std::string>{"%rd1:parameter"});
  CHECK(a.reaching(a.access("st.global.f32")) == std::vector<std::string>{"%rd1:parameter"});
  CHECK(a.access("ld.global.f32").pointerSpace == Space::Global);
  CHECK_FALSE(a.access("ld.global.f32").reachedByUndefined);
  // mul.wide makes an integer, not a pointer: the add's base is %rd2's.
  for (const auto& d : a.pa->defs())
    if (d.reg == "%rd3") CHECK(d.kind == DefKind::Integer);
    else if (d.reg == "%rd4") CHECK(d.kind == DefKind::Derived);
}

TEST_CASE("diamond: two bases meet at a join", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	ld.param.u64 %rd2, [p1];
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $L_else;
	add.s64 %rd3, %rd1, 40;
	bra.uni $L_join;
$L_else:
	add.s64 %rd3, %rd2, 80;
$L_join:
	ld.global.u32 %r2, [%rd3];
)");
  CHECK(a.reaching(a.access("ld.global.u32")) == std::vector<std::string>{"%rd1:parameter", "%rd2:parameter"});
  // CFG: entry, then-block, else-block, join; the join is dominated by the entry only.
  const auto& blocks = a.cfg->blocks();
  REQUIRE(blocks.size() == 4);
  CHECK(blocks[0].successors == std::vector<size_t>{1, 2});
  CHECK(a.cfg->dominates(0, 3));
  CHECK_FALSE(a.cfg->dominates(1, 3));
  CHECK_FALSE(a.cfg->dominates(2, 3));
  CHECK(a.cfg->loops().empty());
}

TEST_CASE("selp of two pointers is a select of their bases", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	ld.param.u64 %rd2, [p1];
	setp.eq.u32 %p1, %r1, 0;
	add.s64 %rd3, %rd1, 40;
	add.s64 %rd4, %rd2, 80;
	selp.b64 %rd5, %rd3, %rd4, %p1;
	ld.global.u32 %r2, [%rd5];
)");
  CHECK(a.reaching(a.access("ld.global.u32")) == std::vector<std::string>{"%rd1:parameter", "%rd2:parameter"});
}

TEST_CASE("loop with a pointer increment: the base is the loop-entry one, defined outside the loop", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	mov.u32 %r1, 0;
$L_loop:
	ld.global.f32 %f1, [%rd1];
	add.s64 %rd1, %rd1, 4;
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 64;
	@%p1 bra $L_loop;
)");
  const AccessSite& load = a.access("ld.global.f32");
  REQUIRE(a.reaching(load) == std::vector<std::string>{"%rd1:parameter"});
  REQUIRE(a.cfg->loops().size() == 1);
  const auto& loop = a.cfg->loops()[0];
  size_t baseBlock = a.cfg->blockOf(a.pa->defs()[load.reachingDefs[0]].statement);
  CHECK(std::find(loop.blocks.begin(), loop.blocks.end(), baseBlock) == loop.blocks.end());
  CHECK(std::find(loop.blocks.begin(), loop.blocks.end(), a.cfg->blockOf(load.statement)) != loop.blocks.end());
  CHECK(a.cfg->dominates(baseBlock, loop.header));
}

TEST_CASE("a pointer loaded from memory is a base of its own", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	ld.global.u64 %rd2, [%rd1+8];
	ld.global.u32 %r1, [%rd2+4];
)");
  CHECK(a.reaching(a.access("ld.global.u64")) == std::vector<std::string>{"%rd1:parameter"});
  CHECK(a.reaching(a.access("ld.global.u32")) == std::vector<std::string>{"%rd2:load"});
}

TEST_CASE("pointers through calls: a returned pointer is a base", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd1;
	.param .b64 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b64 %rd2, [retval0];
	}
	ld.global.u32 %r1, [%rd2];
)", ".func (.param .b64 r) f(.param .b64 a);\n");
  CHECK(a.reaching(a.access("ld.global.u32")) == std::vector<std::string>{"%rd2:parameter"});
  // The call's own parameter traffic is .param space, not a checked access.
  CHECK(a.access("st.param.b64").access.space == Space::Param);
}

TEST_CASE("32-bit shared addresses and cvta round trips", "[analysis]") {
  auto a = analyse(R"(
	mov.u32 %r1, smem;
	ld.shared.u32 %r2, [%r1+4];
	mov.u64 %rd1, smem;
	cvta.shared.u64 %rd2, %rd1;
	ld.u32 %r3, [%rd2];
	ld.param.u64 %rd3, [p0];
	cvta.to.global.u64 %rd4, %rd3;
	cvta.global.u64 %rd5, %rd4;
	ld.u32 %r4, [%rd5];
	mov.u64 %rd6, __local_depot0;
	cvta.local.u64 %rd7, %rd6;
	st.u32 [%rd7], %r4;
)", ".shared .align 4 .b8 smem[64];\n.local .align 4 .b8 __local_depot0[16];\n");
  const AccessSite& shared = a.access("ld.shared.u32");
  CHECK(shared.access.space == Space::Shared);
  CHECK_FALSE(a.pa->registers().is64Bit(shared.addressRegister));
  // Generic accesses: the pointer's known space comes from its cvta.
  CHECK(a.access("ld.u32", 0).pointerSpace == Space::Shared);
  CHECK(a.access("ld.u32", 1).pointerSpace == Space::Global);
  CHECK(a.reaching(a.access("ld.u32", 1)) == std::vector<std::string>{"%rd3:parameter"});
  CHECK(a.access("st.u32").pointerSpace == Space::Local);
}

TEST_CASE("a register defined on only some paths is reached by 'undefined'", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra $L_skip;
	ld.param.u64 %rd1, [p0];
$L_skip:
	ld.global.u32 %r2, [%rd1];
)");
  const AccessSite& load = a.access("ld.global.u32");
  CHECK(load.reachedByUndefined);
  CHECK(a.reaching(load) == std::vector<std::string>{"%rd1:parameter"});
}

TEST_CASE("predicated definitions may not happen: the old value still reaches", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 ld.param.u64 %rd1, [p1];
	ld.global.u32 %r2, [%rd1];
)");
  CHECK(a.reaching(a.access("ld.global.u32")).size() == 2);
}

TEST_CASE("the instruction table: sizes, spaces, address operands", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u64 %rd1, [p0];
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
	st.global.v2.u64 [%rd1], {%rd2, %rd3};
	atom.global.add.u32 %r1, [%rd1], 1;
	red.global.add.f32 [%rd1], %f1;
	ld.global.nc.u8 %r2, [%rd1];
)");
  CHECK(a.access("ld.global.v4.f32").access.size == 16);
  CHECK(a.access("st.global.v2.u64").access.size == 16);
  CHECK(a.access("st.global.v2.u64").access.kind == AccessKind::Write);
  CHECK(a.access("atom.global.add.u32").access.kind == AccessKind::Atomic);
  CHECK(a.access("atom.global.add.u32").access.addressOperand == 1);
  CHECK(a.access("red.global.add.f32").access.addressOperand == 0);
  CHECK(a.access("ld.global.nc.u8").access.size == 1);
}

TEST_CASE("the instruction table: bytes known at run time (wmma fragments, bulk copies)", "[analysis]") {
  auto accessesOf = [](const std::string& text) {
    auto r = parseModule(".version 8.6\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + text + "\n}\n", "t.ptx");
    REQUIRE(r.ok());
    return memoryAccessesOf(std::get<Instruction>(r.module->functions().back()->body.at(0)));
  };
  // A: 16 rows of 16 halfs (row-major), stride apart: 15 * 2 bytes a stride unit, 32 fixed.
  auto a = accessesOf("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, [%rd1], %r1;");
  REQUIRE(a.size() == 1);
  REQUIRE(a[0].extent);
  CHECK(a[0].uncheckable.empty());
  CHECK(a[0].addressOperand == 1);
  CHECK(a[0].extent->operand == 2);
  CHECK(a[0].extent->perUnit == 30);
  CHECK(a[0].extent->fixed == 32);
  // B of m32n8k16, column-major: 8 columns of 16 halfs.
  auto b = accessesOf("wmma.load.b.sync.aligned.col.m32n8k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, [%rd1], %r1;");
  REQUIRE(b[0].extent);
  CHECK(b[0].extent->perUnit == 7 * 2);
  CHECK(b[0].extent->fixed == 16 * 2);
  // D stored, f32, row-major m8n32k16: 8 rows of 32 floats.
  auto d = accessesOf("wmma.store.d.sync.aligned.row.m8n32k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 40;");
  REQUIRE(d[0].extent);
  CHECK(d[0].kind == AccessKind::Write);
  CHECK(d[0].addressOperand == 0);
  CHECK(d[0].extent->perUnit == 7 * 4);
  CHECK(d[0].extent->fixed == 32 * 4);
  // Without a stride, sub-byte elements, shared memory: not checked.
  CHECK(!accessesOf("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, [%rd1];")[0].uncheckable.empty());
  CHECK(!accessesOf("wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r2}, [%rd1], %r1;")[0].uncheckable.empty());
  CHECK(!accessesOf("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, [%r1], 16;")[0].uncheckable.empty());
  // Bulk copies: the global side, the byte count as it is.
  auto in = accessesOf("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];");
  REQUIRE(in[0].extent);
  CHECK(in[0].space == Space::Global);
  CHECK(in[0].kind == AccessKind::Read);
  CHECK(in[0].addressOperand == 1);
  CHECK(in[0].extent->operand == 2);
  CHECK(in[0].extent->perUnit == 1);
  CHECK(in[0].extent->fixed == 0);
  auto out = accessesOf("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2;");
  REQUIRE(out[0].extent);
  CHECK(out[0].kind == AccessKind::Write);
  CHECK(out[0].addressOperand == 0);
  CHECK(accessesOf("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], %r2;")[0].kind ==
        AccessKind::Atomic);
  // .ignore_oob (PTX 9.2): up to 15 bytes at either end may lie outside the allocation: not checked.
  CHECK(!accessesOf("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [%r1], [%rd1], %r2, %r4, %r5, [%r3];")[0]
             .uncheckable.empty());
  // A tensor copy: not checked.
  CHECK(!accessesOf("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], [%r3];")[0]
             .uncheckable.empty());
}

TEST_CASE("shared arrays: 32-bit addresses made from a shared variable's symbol", "[analysis]") {
  auto a = analyse(R"(
	.shared .align 4 .b8 hist[128];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, tile;
	add.s32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	mov.u32 %r5, hist;
	add.s32 %r6, %r1, %r5;
	ld.shared.u8 %r7, [%r6];
	ld.global.u32 %r8, [%rd1];
	add.s32 %r9, %r8, %r5;
	ld.shared.u32 %r10, [%r9+4];
	ld.shared.u32 %r11, [%r8];
	mov.u32 %r12, dyn;
	mad.lo.s32 %r13, %r1, 8, %r12;
	ld.shared.u64 %rd2, [%r13];
)",
                   ".shared .align 4 .b8 tile[256];\n.extern .shared .align 16 .b8 dyn[];\n");
  // A special register (%tid.x) and loaded or computed 32-bit values are integers; the one
  // operand made from a symbol is the base, whichever side of the add it is on.
  CHECK(a.reaching(a.access("st.shared.u32")) == std::vector<std::string>{"%r3:symbol"});
  CHECK(a.reaching(a.access("ld.shared.u8")) == std::vector<std::string>{"%r5:symbol"});
  CHECK(a.reaching(a.access("ld.shared.u32", 0)) == std::vector<std::string>{"%r5:symbol"});
  CHECK(a.reaching(a.access("ld.shared.u32", 1)) == std::vector<std::string>{"%r8:integer"});
  CHECK(a.reaching(a.access("ld.shared.u64")) == std::vector<std::string>{"%r12:symbol"});
  // Sizes: the module's array, the function's own ("demoted") array, the dynamic region.
  SymbolTable symbols = functionSymbols(*a.function, moduleSymbols(a.module));
  CHECK(symbols.at("tile").size == 256);
  CHECK(symbols.at("tile").space == Space::Shared);
  CHECK(symbols.at("hist").size == 128);
  CHECK_FALSE(symbols.at("hist").dynamicShared);
  CHECK(symbols.at("dyn").dynamicShared);
  CHECK(symbols.at("dyn").size == 0);
}

TEST_CASE("cp.async: the shared destination and the global source are two accesses", "[analysis]") {
  auto a = analyse(R"(
	mov.u32 %r1, buf;
	ld.param.u64 %rd1, [p0];
	cp.async.cg.shared.global [%r1], [%rd1], 16, 16;
	cp.async.commit_group;
)",
                   ".shared .align 16 .b8 buf[64];\n");
  std::vector<const AccessSite*> copies;
  for (const auto& s : a.pa->accesses())
    if (std::get<Instruction>(a.function->body[s.statement]).opcode == "cp") copies.push_back(&s);
  REQUIRE(copies.size() == 2);
  CHECK(copies[0]->access.space == Space::Shared);
  CHECK(copies[0]->access.kind == AccessKind::Write);
  CHECK(copies[0]->access.size == 16);
  CHECK(a.reaching(*copies[0]) == std::vector<std::string>{"%r1:symbol"});
  CHECK(copies[1]->access.space == Space::Global);
  CHECK(copies[1]->access.kind == AccessKind::Read);
  CHECK(a.reaching(*copies[1]) == std::vector<std::string>{"%rd1:parameter"});
}

TEST_CASE("value ranges: terms bounded by constants, over registers defined once", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u32 %r1, [n];
	and.b32 %r2, %r1, 63;
	shl.b32 %r3, %r2, 2;
	rem.u32 %r4, %r1, 10;
	min.u32 %r5, %r3, %r4;
	mul.lo.s32 %r6, %r4, 3;
	add.s32 %r7, %r6, 5;
	rem.s32 %r8, %r1, 10;
	@%p1 mov.u32 %r9, 4;
	mov.u32 %r10, 1;
	add.s32 %r10, %r10, 1;
	mov.u32 %r11, tile;
	add.s32 %r12, %r11, %r3;
	add.s32 %r13, %r7, %r12;
)",
                   ".shared .align 4 .b8 tile[256];\n");
  ValueRanges r(*a.function, *a.pa);
  auto is = [&](const std::string& reg, int64_t lo, int64_t hi) {
    auto v = r.of(reg);
    return v && v->lo == lo && v->hi == hi;
  };
  CHECK_FALSE(r.of("%r1"));  // a parameter: anything
  CHECK(is("%r2", 0, 63));
  CHECK(is("%r3", 0, 252));
  CHECK(is("%r4", 0, 9));
  CHECK(is("%r5", 0, 9));
  CHECK(is("%r7", 5, 32));
  CHECK_FALSE(r.of("%r8"));   // a signed remainder may be negative
  CHECK_FALSE(r.of("%r9"));   // a guarded definition may not happen
  CHECK_FALSE(r.of("%r10"));  // defined twice
  auto offset = r.offsetFromSymbol("%r13");
  REQUIRE(offset);
  CHECK(offset->first == "tile");
  CHECK(offset->second.lo == 5);
  CHECK(offset->second.hi == 284);
}

TEST_CASE("dynamic shared parts: uniform terms of the addresses tell the carved arrays apart", "[analysis]") {
  // float* a = smem; float* b = smem + n; int* c = (int*)(b + n2); with n2 = 2 * n + blockDim.x,
  // as nvcc writes it: b[t] is smem + (t + n) * 4, reassociated; and a pointer stepped in a loop.
  auto a = analyse(R"(
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, smem;
	shl.b32 %r4, %r2, 2;
	add.s32 %r5, %r3, %r4;
	st.shared.f32 [%r5], %f1;
	add.s32 %r6, %r2, %r1;
	shl.b32 %r7, %r6, 2;
	add.s32 %r8, %r3, %r7;
	st.shared.f32 [%r8+4], %f1;
	mov.u32 %r9, %ntid.x;
	mad.lo.s32 %r10, %r1, 2, %r9;
	shl.b32 %r11, %r10, 2;
	add.s32 %r12, %r8, %r11;
	st.shared.u32 [%r12], %r2;
	ld.global.u32 %r13, [%rd1];
	mul.lo.s32 %r14, %r13, %r1;
	add.s32 %r15, %r5, %r14;
	ld.shared.f32 %f2, [%r15];
	mov.u32 %r0, %r3;
$L1:
	add.s32 %r0, %r0, 4;
	ld.shared.f32 %f3, [%r0];
	@%p1 bra $L1;
	add.s32 %r16, %r3, %r7;
	ld.shared.f32 %f4, [%r16];
	mov.u32 %r16, %r3;
$L2:
	add.s32 %r16, %r16, 4;
	@%p2 bra $L2;
)",
                   ".extern .shared .align 16 .b8 smem[];\n");
  DynamicSharedParts parts(*a.function, *a.cfg, *a.pa, *a.symbols);
  CHECK(parts.symbol() == "smem");
  // b starts at n * 4; c at (n + 2n + ntid) * 4 = 12n + 4 ntid, as the sum of both adds.
  using Start = std::map<std::string, int64_t>;
  REQUIRE(parts.starts().size() == 2);
  CHECK(parts.starts()[0] == Start{{"%r1", 4}});
  CHECK(parts.starts()[1] == Start{{"%r1", 12}, {"%r9", 4}});
  auto part = [&](std::string_view op, int n) { return parts.partOf(a.access(op, n).statement); };
  CHECK(part("st.shared.f32", 0) == 0u);  // %r5
  CHECK(part("st.shared.f32", 1) == 1u);  // %r8
  CHECK(part("st.shared.u32", 0) == 2u);  // %r12
  CHECK(part("ld.shared.f32", 0) == 0u);  // %r15: a loaded value times n varies by thread: an index
  CHECK_FALSE(part("ld.shared.f32", 1));  // %r0 stepped in a loop: two definitions reach it
  CHECK(part("ld.shared.f32", 2) == 1u);  // %r16 = b, before it is stepped in a loop
  CHECK(parts.isUniform("%r1"));
  CHECK(parts.isUniform("%r9"));
  CHECK(parts.isUniform("%r10"));
  CHECK_FALSE(parts.isUniform("%r2"));   // %tid.x
  CHECK_FALSE(parts.isUniform("%r13"));  // loaded from memory
  LinearForm f = parts.formOf("%r8", a.access("st.shared.f32", 1).statement);
  CHECK(f.symbol == "smem");
  CHECK(f.constant == 0);
  CHECK(f.terms == Start{{"%r1", 4}, {"%r2", 4}});
  // Recomputed at entry: the parameter and %ntid.x, each before what reads them.
  std::vector<std::string> entry;
  for (size_t s : parts.entryDefinitions()) entry.push_back(std::get<Instruction>(a.function->body[s]).operands[0].text);
  CHECK(entry == std::vector<std::string>{"%r1", "%r9"});
}

TEST_CASE("mapa moves a shared variable's address into another block of the cluster", "[analysis]") {
  auto a = analyse(R"(
	mov.u32 %r1, tile;
	mov.u32 %r2, %cluster_ctarank;
	mapa.shared::cluster.u32 %r3, %r1, %r2;
	ld.shared::cluster.u32 %r4, [%r3];
	cvt.u64.u32 %rd1, %r1;
	cvta.shared.u64 %rd2, %rd1;
	mapa.u64 %rd3, %rd2, 1;
	ld.u32 %r5, [%rd3];
)",
                   ".shared .align 4 .b8 tile[64];\n");
  const PointerDef* narrow = nullptr;
  const PointerDef* wide = nullptr;
  for (const auto& d : a.pa->defs()) {
    if (d.reg == "%r3") narrow = &d;
    if (d.reg == "%rd3") wide = &d;
  }
  REQUIRE(narrow);
  CHECK(narrow->kind == DefKind::Derived);
  CHECK(narrow->sources == std::vector<std::string>{"%r1"});
  CHECK(narrow->mapaRank == "%r2");
  REQUIRE(wide);
  CHECK(wide->mapaRank == "1");
  CHECK(wide->space == Space::SharedCluster);
  // Both accesses are reached by the variable's symbol through the mapa.
  const AccessSite& cluster = a.access("ld.shared::cluster.u32");
  CHECK(a.reaching(cluster) == std::vector<std::string>{"%r1:symbol"});
  const AccessSite& generic = a.access("ld.u32");
  CHECK(generic.pointerSpace == Space::SharedCluster);
  CHECK(a.reaching(generic) == std::vector<std::string>{"%r1:symbol"});
}

TEST_CASE("dynamic shared parts: none in a device function, none with a single offset", "[analysis]") {
  auto parts = [](const std::string& header, const std::string& body) {
    auto a = analyseModule(".version 8.0\n.target sm_80\n.address_size 64\n.extern .shared .align 16 .b8 smem[];\n" +
                           header + "\n{\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<2>;\n" + body + "\tret;\n}\n");
    return DynamicSharedParts(*a.function, *a.cfg, *a.pa, *a.symbols).starts().size();
  };
  const std::string carve =
      "\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, smem;\n\tshl.b32 %r3, %r1, 2;\n\tadd.s32 %r4, %r2, %r3;\n"
      "\tst.shared.f32 [%r4], %f1;\n\tst.shared.f32 [%r2], %f1;\n";
  CHECK(parts(".visible .entry k(.param .u32 n)", carve) == 1);
  // In a device function a parameter may differ between threads.
  CHECK(parts(".visible .func f(.param .u32 n)", carve) == 0);
  // A constant offset is an index, never a part: s[t + 16] is not a second array.
  CHECK(parts(".visible .entry k(.param .u32 n)",
              "\tmov.u32 %r2, smem;\n\tst.shared.f32 [%r2+64], %f1;\n\tadd.s32 %r4, %r2, 128;\n"
              "\tst.shared.f32 [%r4], %f1;\n") == 0);
}

TEST_CASE("value ranges: %tid below the kernel's .maxntid, %laneid below 32", "[analysis]") {
  auto bounds = [](const std::string& header, const std::string& reg) {
    auto a = analyseModule(".version 8.0\n.target sm_80\n.address_size 64\n.shared .align 4 .b8 tile[512];\n" +
                           header +
                           "\n{\n\t.reg .b32 %r<8>;\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %laneid;\n"
                           "\tshl.b32 %r3, %r1, 2;\n\tmov.u32 %r4, tile;\n\tadd.s32 %r5, %r4, %r3;\n"
                           "\tld.shared.u32 %r6, [%r5];\n\tret;\n}\n");
    ValueRanges ranges(*a.function, *a.pa);
    if (reg == "offset") {
      auto o = ranges.offsetFromSymbol("%r5");
      return o ? std::optional<Interval>(o->second) : std::nullopt;
    }
    return ranges.of(reg);
  };
  auto tid = bounds(".visible .entry k() .maxntid 128, 1, 1", "%r1");
  REQUIRE(tid);
  CHECK(tid->hi == 127);
  auto offset = bounds(".visible .entry k() .maxntid 128, 1, 1", "offset");
  REQUIRE(offset);
  CHECK(offset->hi == 508);  // tile[tid.x] with 128 threads stays inside 512 bytes
  CHECK(bounds(".visible .entry k() .reqntid 64", "%r1")->hi == 63);
  CHECK_FALSE(bounds(".visible .entry k()", "%r1"));  // no bound declared
  CHECK_FALSE(bounds(".visible .func f()", "%r1"));   // a device function: any kernel may call it
  CHECK(bounds(".visible .func f()", "%r2")->hi == 31);
}

TEST_CASE("value ranges: a local frame's address plus 64-bit terms bounded by masks and widened indices", "[analysis]") {
  // The frame (nvcc's __local_depot) is a .local variable of the function; its addresses are
  // 64-bit. bins[k & 31] as nvcc writes it (the byte offset masked in 64 bits), a[i & 7] with
  // the index widened by mul.wide, and a sign-extended index that may be negative.
  auto a = analyse(R"(
	.local .align 16 .b8 __local_depot0[128];
	.reg .b64 %SPL;
	mov.u64 %SPL, __local_depot0;
	add.u64 %rd1, %SPL, 0;
	add.u64 %rd2, %SPL, 64;
	ld.param.u32 %r1, [n];
	shl.b32 %r2, %r1, 2;
	cvt.u64.u32 %rd3, %r2;
	and.b64 %rd4, %rd3, 124;
	add.s64 %rd5, %rd1, %rd4;
	and.b32 %r3, %r1, 7;
	mul.wide.u32 %rd6, %r3, 4;
	add.s64 %rd7, %rd2, %rd6;
	mul.wide.s32 %rd8, %r1, 4;
	add.s64 %rd9, %rd2, %rd8;
	cvt.s64.s32 %rd10, %r3;
	add.s64 %rd11, %rd1, %rd10;
	.reg .b64 %SP;
	cvta.local.u64 %SP, %SPL;
	add.u64 %rd12, %SP, 32;
	shl.b64 %rd13, %rd10, 2;
	add.s64 %rd14, %rd12, %rd13;
	.reg .b64 %rx<2>;
	cvt.s64.s32 %rx0, %r1;
	shl.b64 %rd15, %rx0, 2;
	add.s64 %rx1, %rd12, %rd15;
)");
  ValueRanges r(*a.function, *a.pa);
  auto offset = [&](const std::string& reg, int64_t lo, int64_t hi) {
    auto o = r.offsetFromSymbol(reg);
    return o && o->first == "__local_depot0" && o->second.lo == lo && o->second.hi == hi;
  };
  CHECK(offset("%rd1", 0, 0));
  CHECK(offset("%rd2", 64, 64));
  CHECK(offset("%rd5", 0, 124));   // masked byte offset
  CHECK(offset("%rd7", 64, 92));   // (i & 7) * 4 past the array at 64
  CHECK(offset("%rd11", 0, 7));    // sign-extended, known non-negative
  CHECK_FALSE(r.offsetFromSymbol("%rd9"));  // an unbounded (possibly negative) index
  // A debug build's: the generic frame pointer (cvta.local keeps the offset), and an index
  // sign-extended and then shifted to bytes.
  CHECK(offset("%rd12", 32, 32));
  CHECK(offset("%rd14", 32, 60));
  CHECK_FALSE(r.offsetFromSymbol("%rx1"));  // an unbounded index, shifted
}

TEST_CASE("frame layout: the arrays of a frame start where nvcc materializes their addresses", "[analysis]") {
  // Three arrays at 0, 32 and 64 of a 128-byte frame (local and generic addresses of the one at
  // 32), as nvcc writes them; accesses through each, through a pointer stepped in a loop,
  // through a select of two arrays, and through the frame register itself.
  auto a = analyse(R"(
	.local .align 16 .b8 __local_depot0[128];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	add.u64 %rd1, %SPL, 0;
	add.u64 %rd2, %SPL, 32;
	add.u64 %rd3, %SP, 32;
	add.u64 %rd4, %SPL, 64;
	ld.param.u32 %r1, [n];
	mul.wide.s32 %rd5, %r1, 4;
	add.s64 %rd6, %rd2, %rd5;
	ld.local.u32 %r2, [%rd6+8];
	add.s64 %rd7, %rd4, %rd5;
	ld.local.u32 %r3, [%rd7];
	mov.u64 %rd8, %rd1;
$L__loop:
	st.local.u32 [%rd8], %r1;
	add.s64 %rd8, %rd8, 4;
	setp.lt.u64 %p1, %rd8, %rd6;
	@%p1 bra $L__loop;
	setp.eq.u32 %p2, %r1, 0;
	selp.b64 %rd9, %rd1, %rd2, %p2;
	ld.local.u32 %r4, [%rd9];
	ld.local.u32 %r5, [%SPL+16];
)");
  FrameLayout layout = frameLayoutOf(a);
  REQUIRE(layout.starts().count("__local_depot0"));
  CHECK(layout.starts().at("__local_depot0") == std::set<uint64_t>{0, 32, 64});
  auto object = [&](int n) { return layout.objectOf(a.access("ld.local.u32", n)); };
  auto second = object(0);
  REQUIRE(second);
  CHECK(second->frame == "__local_depot0");
  CHECK(second->start == 32);
  CHECK(second->size == 32);
  auto last = object(1);
  REQUIRE(last);
  CHECK(last->start == 64);
  CHECK(last->size == 64);  // to the frame's end
  auto stepped = layout.objectOf(a.access("st.local.u32", 0));
  REQUIRE(stepped);
  CHECK(stepped->start == 0);
  CHECK_FALSE(object(2));  // either of two arrays
  CHECK_FALSE(object(3));  // the frame register itself: no array
}

TEST_CASE("frame layout: generic starts make the same arrays; a bounded offset across them keeps the frame whole",
          "[analysis]") {
  // A debug build's generic frame pointer: %SP plus each array's offset, element offsets added
  // after. The start definitions give their arrays (GlobalChecks gives them their bounds).
  // (Two 32-byte arrays of a 64-byte frame, their generic starts in %rd1 and %rd2.)
  const std::string twoArrays = R"(
	.local .align 16 .b8 __local_depot0[64];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	add.u64 %rd1, %SP, 0;
	add.u64 %rd2, %SP, 32;
	ld.param.u32 %r1, [n];
)";
  auto a = analyse(twoArrays + R"(
	mul.wide.s32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.u32 [%rd4], %r1;
	setp.eq.u32 %p1, %r1, 0;
	selp.b64 %rd5, %rd1, %rd2, %p1;
	ld.u32 %r2, [%rd5];
)");
  FrameLayout layout = frameLayoutOf(a);
  CHECK(layout.starts().at("__local_depot0") == std::set<uint64_t>{0, 32});
  CHECK(layout.keptWhole().empty());
  auto second = layout.objectOf(a.access("st.u32"));
  REQUIRE(second);
  CHECK(second->start == 32);
  CHECK(second->size == 32);
  std::vector<uint64_t> started;
  for (size_t d = 0; d < a.pa->defs().size(); ++d)
    if (auto o = layout.startedBy(d)) started.push_back(o->start);
  CHECK(started == std::vector<uint64_t>{0, 32});
  // A select of the two: no one array, but reached by starts (its bounds may be either's).
  CHECK_FALSE(layout.objectOf(a.access("ld.u32")));
  CHECK(layout.reachedByStart("%rd5"));
  CHECK_FALSE(layout.reachedByStart("%SP"));

  // From the array at 0, an index bounded to 0..15 reaches [0, 64), past the array at 32: the
  // frame is kept whole, and its starts make no arrays. (ValueRanges follows the cvta.local.)
  auto crossing = analyse(twoArrays + R"(
	and.b32 %r2, %r1, 15;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.u32 [%rd4], %r1;
	st.u32 [%rd2], %r1;
)");
  FrameLayout whole = frameLayoutOf(crossing);
  CHECK(whole.keptWhole() == std::set<std::string>{"__local_depot0"});
  CHECK_FALSE(whole.objectOf(crossing.access("st.u32", 1)));
  for (size_t d = 0; d < crossing.pa->defs().size(); ++d) CHECK_FALSE(whole.startedBy(d));
  CHECK_FALSE(whole.reachedByStart("%rd2"));
}

TEST_CASE("live local bound: a kernel's only local variable, or none; nothing known in a device function", "[analysis]") {
  // (While a kernel itself runs, its own frame is the only live local memory: GlobalChecks
  // bounds its local-window pointers of unknown origin by it.)
  auto bound = [](const std::string& body) { return liveLocalBound(*analyse(body).function); };
  auto frame = bound("\t.local .align 4 .b8 __local_depot0[32];\n\tmov.u64 %rd1, __local_depot0;\n");
  REQUIRE(frame);
  CHECK(frame->frame == "__local_depot0");
  // A kernel with no local memory: nothing in its frame a pointer could point to.
  auto none = bound("\tld.param.u64 %rd1, [p0];\n");
  REQUIRE(none);
  CHECK(none->frame.empty());
  // A device function: its callers' frames are live too, wherever ptxas put them.
  auto device = analyseModule(".version 8.0\n.target sm_80\n.address_size 64\n"
                              ".visible .func f(.param .b64 f_p)\n{\n\t.local .align 4 .b8 __local_depot0[32];\n"
                              "\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [f_p];\n\tst.u32 [%rd1], 1;\n\tret;\n}\n");
  CHECK_FALSE(liveLocalBound(*device.function));
  // An alloca's blocks are live too.
  CHECK_FALSE(bound("\t.local .align 4 .b8 __local_depot0[32];\n\talloca.u64 %rd1, 16, 8;\n\tst.local.u32 [%rd1], 1;\n"));
  CHECK_FALSE(bound("\talloca.u64 %rd1, 16, 8;\n\tst.local.u32 [%rd1], 1;\n"));
  // Two local variables: not one frame.
  CHECK_FALSE(bound("\t.local .align 4 .b8 a[32];\n\t.local .align 4 .b8 b[32];\n\tmov.u64 %rd1, a;\n"));
}

TEST_CASE("value ranges: 64-bit terms that would wrap prove nothing", "[analysis]") {
  // Two sign-extended indices masked to 63 bits and added to a 32-byte frame's address: the
  // sum of their ranges does not fit in 64 bits, so no offset is claimed (a wrapped sum once
  // "proved" such an access inside the frame).
  auto a = analyse(R"(
	.local .align 16 .b8 __local_depot0[32];
	.reg .b64 %SPL;
	mov.u64 %SPL, __local_depot0;
	ld.param.u32 %r1, [n];
	cvt.s64.s32 %rd1, %r1;
	and.b64 %rd3, %rd1, 0x7FFFFFFFFFFFFFFF;
	and.b64 %rd4, %rd1, 0x7FFFFFFFFFFFFFFF;
	add.s64 %rd5, %SPL, %rd3;
	add.s64 %rd6, %rd5, %rd4;
	and.b32 %r2, %r1, 3;
	mul.wide.u32 %rd7, %r2, 4294967295;
	add.s64 %rd8, %SPL, %rd7;
)");
  ValueRanges r(*a.function, *a.pa);
  CHECK_FALSE(r.offsetFromSymbol("%rd5"));  // a 63-bit mask bounds nothing useful
  CHECK_FALSE(r.offsetFromSymbol("%rd6"));
  auto scaled = r.offsetFromSymbol("%rd8");  // 3 * (2^32 - 1) fits: computed exactly
  REQUIRE(scaled);
  CHECK(scaled->second.hi == 3 * 4294967295ll);
}

TEST_CASE("alloca: a base of its own, followed through nvcc's round trip by a generic address", "[analysis]") {
  auto a = analyse(R"(
	ld.param.u32 %r1, [n];
	mul.wide.u32 %rd1, %r1, 4;
	alloca.u64 %rd2, %rd1, 16;
	cvta.local.u64 %rd2, %rd2;
	cvta.to.local.u64 %rd3, %rd2;
	add.s64 %rd4, %rd3, 8;
	st.local.u32 [%rd4], %r1;
	alloca.u64 %rd5, 16, 8;
	setp.eq.u32 %p1, %r1, 0;
	selp.b64 %rd6, %rd3, %rd5, %p1;
	ld.local.u32 %r2, [%rd6];
	ld.param.u64 %rd7, [p0];
	cvta.to.local.u64 %rd8, %rd7;
	ld.local.u32 %r3, [%rd8];
)");
  const auto& store = a.access("st.local.u32");
  auto alloca = a.pa->allocaOfEveryBase(store);
  REQUIRE(alloca);
  CHECK(a.pa->defs()[*alloca].origin == BaseOrigin::Alloca);
  CHECK(std::get<Instruction>(a.function->body[a.pa->defs()[*alloca].statement]).opcode == "alloca");
  // Two allocas may reach it: no one block bounds it.
  CHECK_FALSE(a.pa->allocaOfEveryBase(a.access("ld.local.u32", 0)));
  // A pointer a function was given is no alloca's.
  CHECK_FALSE(a.pa->allocaOfEveryBase(a.access("ld.local.u32", 1)));
}

namespace {

// The families among all accesses of `a`'s function, each as its members' statement indices,
// with the lowest and the highest member's.
struct FamilyShape {
  std::vector<size_t> members;
  size_t lowest, highest;
  std::vector<size_t> lowestRecomputed, highestRecomputed;
};
std::vector<FamilyShape> familiesOf(const Analysed& a) {
  std::vector<const AccessSite*> all;
  for (const auto& s : a.pa->accesses()) all.push_back(&s);
  std::vector<FamilyShape> out;
  for (const AddressFamily& f : addressFamilies(*a.function, *a.cfg, a.pa->registers(), all)) {
    REQUIRE(f.extremes.size() >= 2);
    FamilyShape shape{{}, f.extremes.front().access->statement, f.extremes.back().access->statement,
                      f.extremes.front().recomputed, f.extremes.back().recomputed};
    for (const AccessSite* m : f.members) shape.members.push_back(m->statement);
    out.push_back(shape);
  }
  return out;
}

// The taps of a clamped stencil row, row[min(max(x + dx, 0), n - 1)] for dx = -1, 0, 1, as nvcc
// writes them (the dx = 0 tap has no add); `tap` is the instruction the middle of each tap's
// expression (between the clamp and the address) uses.
std::string clampedRow(const std::string& widen, const std::string& clampMax = "max.s32",
                       const std::string& scale = "shl.b64 %rd{0}, %rd{1}, 2;") {
  std::string s = R"(
	ld.param.u64 %rd1, [p0];
	cvta.to.global.u64 %rd2, %rd1;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	add.s32 %r3, %r1, -1;
)";
  const char* taps[] = {"add.s32 %r{0}, %r2, -1;\n\t{1} %r{2}, %r{0}, 0;", "{1} %r{2}, %r2, 0;",
                        "add.s32 %r{0}, %r2, 1;\n\t{1} %r{2}, %r{0}, 0;"};
  for (int t = 0; t < 3; ++t) {
    int r = 4 + 3 * t, d = 3 + 3 * t;
    std::string tap = taps[t];
    auto fill = [](std::string text, const std::vector<std::string>& args) {
      for (size_t i = 0; i < args.size(); ++i)
        for (size_t at; (at = text.find("{" + std::to_string(i) + "}")) != std::string::npos;)
          text.replace(at, 3, args[i]);
      return text;
    };
    s += "\t" + fill(tap, {std::to_string(r), clampMax, std::to_string(r + 1)}) + "\n";
    s += fill("\tmin.s32 %r{0}, %r{1}, %r3;\n", {std::to_string(r + 2), std::to_string(r + 1)});
    s += fill("\t" + widen + "\n", {std::to_string(d), std::to_string(r + 2)});
    s += "\t" + fill(scale, {std::to_string(d + 1), std::to_string(d)}) + "\n";
    s += fill("\tadd.s64 %rd{0}, %rd2, %rd{1};\n\tld.global.f32 %f{2}, [%rd{0}];\n",
              {std::to_string(d + 2), std::to_string(d + 1), std::to_string(t + 1)});
  }
  return s;
}


// Three loads p[x + c] (x = %tid.x) for the constants `c` ("": x itself, no add), each through
// registers of its own: add.<type>, mul.wide.<type> by 4, added to the pointer.
std::string indexTaps(const std::vector<std::string>& constants, const std::string& type) {
  std::string s = "\tld.param.u64 %rd1, [p0];\n\tmov.u32 %r1, %tid.x;\n";
  for (size_t t = 0; t < constants.size(); ++t) {
    std::string index = "%r1", r = std::to_string(t + 2), d = std::to_string(2 * t + 2), d2 = std::to_string(2 * t + 3);
    if (!constants[t].empty()) {
      s += "\tadd." + type + " %r" + r + ", %r1, " + constants[t] + ";\n";
      index = "%r" + r;
    }
    s += "\tmul.wide." + type + " %rd" + d + ", " + index + ", 4;\n\tadd.s64 %rd" + d2 + ", %rd1, %rd" + d +
         ";\n\tld.global.f32 %f" + std::to_string(t + 1) + ", [%rd" + d2 + "];\n";
  }
  return s;
}
}  // namespace

TEST_CASE("address families: a clamped stencil's taps, checked at their lowest and highest address", "[analysis]") {
  auto a = analyse(clampedRow("cvt.s64.s32 %rd{0}, %r{1};"));
  auto families = familiesOf(a);
  REQUIRE(families.size() == 1);
  const FamilyShape& f = families[0];
  auto load = [&](int n) { return a.access("ld.global.f32", n).statement; };
  CHECK(f.members == std::vector<size_t>{load(0), load(1), load(2)});
  CHECK(f.lowest == load(0));   // dx = -1, the first: its address is there already
  CHECK(f.highest == load(2));  // dx = +1
  CHECK(f.lowestRecomputed.empty());
  // dx = +1's add, max, min, cvt, shl and add run again before the first tap.
  CHECK(f.highestRecomputed.size() == 6);
  CHECK(f.highestRecomputed.front() > load(1));
  CHECK(f.highestRecomputed.back() == load(2) - 1);
}

TEST_CASE("address families: only where the address cannot go down as the constant goes up", "[analysis]") {
  // A zero extension of a signed clamp: -1 widens to 2^32 - 1, above 0's.
  CHECK(familiesOf(analyse(clampedRow("cvt.u64.u32 %rd{0}, %r{1};"))).empty());
  // Scaled by a register, which may be negative.
  CHECK(familiesOf(analyse(clampedRow("cvt.s64.s32 %rd{0}, %r{1};", "max.s32",
                                      "mul.lo.s64 %rd{0}, %rd{1}, %rd1;")))
            .empty());
  // Scaled by a constant: still non-decreasing.
  CHECK(familiesOf(analyse(clampedRow("cvt.s64.s32 %rd{0}, %r{1};", "max.s32", "mul.lo.s64 %rd{0}, %rd{1}, 12;")))
            .size() == 1);
  // An unsigned clamp under a signed widening.
  CHECK(familiesOf(analyse(clampedRow("cvt.s64.s32 %rd{0}, %r{1};", "max.u32"))).empty());
  // cvt reads the signedness of its source type: a sign extension to u64 of the signed clamp
  // keeps the order, a zero extension of it (cvt.s64.u32) does not.
  CHECK(familiesOf(analyse(clampedRow("cvt.u64.s32 %rd{0}, %r{1};"))).size() == 1);
  CHECK(familiesOf(analyse(clampedRow("cvt.s64.u32 %rd{0}, %r{1};"))).empty());
  // A shift by the constant: the constant is not an offset.
  CHECK(familiesOf(analyse(R"(
	ld.param.u64 %rd1, [p0];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 1;
	cvt.u64.u32 %rd2, %r2;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.f32 %f1, [%rd3];
	shl.b32 %r3, %r1, 2;
	cvt.u64.u32 %rd4, %r3;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.f32 %f2, [%rd5];
	shl.b32 %r4, %r1, 3;
	cvt.u64.u32 %rd6, %r4;
	add.s64 %rd7, %rd1, %rd6;
	ld.global.f32 %f3, [%rd7];
)")).empty());
}

TEST_CASE("address families: every member runs once the first does", "[analysis]") {
  std::string row = clampedRow("cvt.s64.s32 %rd{0}, %r{1};");
  // A call between the taps (it may not come back) splits them: no run of three is left.
  std::string called = row;
  called.insert(called.find("\tadd.s32 %r10"), "\tcall.uni f;\n");
  CHECK(familiesOf(analyseModule(".version 8.0\n.target sm_80\n.address_size 64\n.func f()\n{\n\tret;\n}\n"
                                 ".visible .entry k(.param .u64 p0, .param .u64 p1, .param .u32 n)\n{\n"
                                 "\t.reg .pred %p<4>;\n\t.reg .b32 %r<24>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<16>;\n" +
                                 called + "\tret;\n}\n"))
            .empty());
  // A guarded tap is not a member: two are left.
  std::string guarded = row;
  guarded.replace(guarded.find("\tld.global.f32 %f2"), 1, "\t@%p1 ");
  guarded.insert(0, "\tsetp.eq.u32 %p1, %r2, 0;\n");
  CHECK(familiesOf(analyse(guarded)).empty());
}

TEST_CASE("address families: the extremes wherever they are, their addresses made again", "[analysis]") {
  // Taps at 0, +1 and -1, in that order: the lowest is the last and the highest the second,
  // both made after the first.
  auto a = analyse(indexTaps({"", "1", "-1"}, "s32"));
  auto families = familiesOf(a);
  REQUIRE(families.size() == 1);
  auto load = [&](int n) { return a.access("ld.global.f32", n).statement; };
  CHECK(families[0].lowest == load(2));
  CHECK(families[0].highest == load(1));
  CHECK(families[0].lowestRecomputed == std::vector<size_t>{load(1) + 1, load(1) + 2, load(1) + 3});
  CHECK(families[0].highestRecomputed == std::vector<size_t>{load(0) + 1, load(0) + 2, load(0) + 3});
}

TEST_CASE("address families: values that change are not the same value", "[analysis]") {
  // Each tap reads %clock anew: the taps differ in more than a constant.
  auto tapsFrom = [](const std::string& special) {
    std::string s = "\tld.param.u64 %rd1, [p0];\n";
    for (int t = 0; t < 3; ++t) {
      std::string r = std::to_string(2 * t + 1), r2 = std::to_string(2 * t + 2), d = std::to_string(2 * t + 2),
                  d2 = std::to_string(2 * t + 3);
      s += "\tmov.u32 %r" + r + ", " + special + ";\n\tadd.s32 %r" + r2 + ", %r" + r + ", " + std::to_string(t) +
           ";\n\tmul.wide.s32 %rd" + d + ", %r" + r2 + ", 4;\n\tadd.s64 %rd" + d2 + ", %rd1, %rd" + d +
           ";\n\tld.global.f32 %f" + std::to_string(t + 1) + ", [%rd" + d2 + "];\n";
    }
    return s;
  };
  CHECK(familiesOf(analyse(tapsFrom("%clock"))).empty());
  CHECK(familiesOf(analyse(tapsFrom("%tid.x"))).size() == 1);  // one value throughout
  // A register redefined between the taps is another value (a register named without %).
  CHECK(familiesOf(analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p0)
{
	.reg .b32 k;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [p0];
	mov.b32 k, 0;
	add.s32 %r3, k, 0;
	mul.wide.s32 %rd3, %r3, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.f32 %f1, [%rd4];
	add.s32 %r4, k, 1;
	mul.wide.s32 %rd5, %r4, 4;
	add.s64 %rd6, %rd1, %rd5;
	ld.global.f32 %f2, [%rd6];
	mov.b32 k, -1;
	add.s32 %r5, k, 2;
	mul.wide.s32 %rd7, %r5, 4;
	add.s64 %rd8, %rd1, %rd7;
	ld.global.f32 %f3, [%rd8];
	ret;
}
)")).empty());
  // A 32-bit constant is the signed value of its bits: 4294967295 is -1, the lowest.
  auto b = analyse(indexTaps({"4294967295", "0", "1"}, "u32"));
  auto families = familiesOf(b);
  REQUIRE(families.size() == 1);
  CHECK(families[0].lowest == b.access("ld.global.f32", 0).statement);
  CHECK(families[0].highest == b.access("ld.global.f32", 2).statement);
}

TEST_CASE("defined registers: the barrier reduction, multimem.ld_reduce and tcgen05.ld write theirs", "[analysis]") {
  // A review found bar.red's destination taken for no definition: an analysis asking whether a
  // loop changes %r1 would have said no.
  auto defined = [](const std::string& line) {
    auto r = parseModule(".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n" + line + "\n}\n",
                         "t.ptx");
    if (!r.ok()) FAIL(r.errors.front().str());
    std::vector<std::string> out;
    for (const auto& s : r.module->functions().back()->body)
      if (const auto* in = std::get_if<Instruction>(&s)) forEachDefinedRegister(*in, [&](const std::string& n) { out.push_back(n); });
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(defined("bar.red.popc.u32 %r1, 0, %p1;") == V{"%r1"});
  CHECK(defined("barrier.red.or.pred %p2, 0, %p1;") == V{"%p2"});
  CHECK(defined("multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];") == V{"%r1"});
  CHECK(defined("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];") == V{"%r1", "%r2"});
  CHECK(defined("bar.sync 0;").empty());
  CHECK(defined("multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;").empty());
  CHECK(defined("st.global.u32 [%rd1], %r1;").empty());
}

TEST_CASE("launch bounds: offsets bounded by the block's dimensions and the dynamic shared size", "[analysis]") {
  // A Hillis-Steele scan's ping-pong offsets (from and to swapped each step: 0 or blockDim.x), a
  // 2-D tile indexed [threadIdx.y + 24][threadIdx.x] (mad), blockDim.x - 1 - threadIdx.x (the
  // bounds cancel), an induction variable (unbounded), and an index only a run tells.
  auto a = analyse(R"(
	.shared .align 4 .b8 tile[4224];
	mov.u32 %r1, %ntid.x;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, buf;
	shl.b32 %r4, %r2, 2;
	add.s32 %r5, %r3, %r4;
	mov.u32 %r6, 0;
	mov.u32 %r7, %r1;
	mov.u32 %r8, 1;
$L__loop:
	shl.b32 %r9, %r6, 2;
	add.s32 %r10, %r5, %r9;
	ld.shared.u32 %r11, [%r10];
	shl.b32 %r12, %r7, 2;
	add.s32 %r13, %r5, %r12;
	st.shared.u32 [%r13], %r11;
	mov.u32 %r14, %r6;
	mov.u32 %r6, %r7;
	mov.u32 %r7, %r14;
	shl.b32 %r8, %r8, 1;
	setp.lt.s32 %p1, %r8, %r1;
	@%p1 bra $L__loop;
	mov.u32 %r15, tile;
	mov.u32 %r16, %tid.y;
	mad.lo.s32 %r17, %r16, 132, %r15;
	add.s32 %r18, %r17, %r4;
	st.shared.u32 [%r18+3168], %r11;
	sub.s32 %r19, %r1, %r2;
	add.s32 %r20, %r19, -1;
	shl.b32 %r21, %r20, 2;
	add.s32 %r22, %r3, %r21;
	ld.shared.u32 %r23, [%r22];
	shl.b32 %r0, %r8, 2;
	add.s32 %r0, %r3, %r0;
	st.shared.u32 [%r0], %r23;
	ld.shared.u32 %r0, [buf];
)",
                   ".extern .shared .align 4 .b8 buf[];\n");
  LaunchBounds lb(*a.function, *a.pa, *a.symbols);
  auto term = [](int64_t c, int64_t x, int64_t y, int64_t dyn) { return LaunchAffine{c, {x, y, 0, dyn}}; };
  // buf[t + from]: 4 (t + from) + 4 <= dynamic size, from <= blockDim.x.
  auto scanRead = lb.inBoundsWhen(a.access("ld.shared.u32", 0), "buf");
  REQUIRE(scanRead);
  CHECK(*scanRead == LaunchCondition{term(0, -8, 0, 1)});
  CHECK(lb.inBoundsWhen(a.access("st.shared.u32", 0), "buf") == scanRead);
  CHECK_FALSE(lb.inBoundsWhen(a.access("ld.shared.u32", 0), "tile"));  // not its variable
  // tile[ty + 24][tx]: 132 ty + 4 tx + 3172 <= 4224, for ty < ntid.y, tx < ntid.x.
  auto tile = lb.inBoundsWhen(a.access("st.shared.u32", 1), "tile");
  REQUIRE(tile);
  CHECK(*tile == LaunchCondition{term(4224 - 3172 + 132 + 4, -4, -132, 0)});
  // buf[blockDim.x - 1 - t]: at least 0 for every launch; its end needs 4 blockDim.x bytes.
  auto reversed = lb.inBoundsWhen(a.access("ld.shared.u32", 1), "buf");
  REQUIRE(reversed);
  CHECK(*reversed == LaunchCondition{term(0, -4, 0, 1)});
  // The doubled step grows every round: unbounded, no condition.
  CHECK(lb.of("%r8").unbounded);
  CHECK_FALSE(lb.inBoundsWhen(a.access("st.shared.u32", 2), "buf"));
  // [buf]: the dynamic size must hold 4 bytes.
  auto first = lb.inBoundsWhen(a.access("ld.shared.u32", 2), "buf");
  REQUIRE(first);
  CHECK(*first == LaunchCondition{term(-4, 0, 0, 1)});
}

TEST_CASE("launch bounds: a kernel's .reqntid decides a condition, a wrap-around bounds nothing", "[analysis]") {
  auto a = analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k() .reqntid 256, 1, 1
{
	.reg .b32 %r<17>;
	.shared .align 4 .b8 s[1024];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, s;
	add.s32 %r4, %r3, %r2;
	ld.shared.u32 %r5, [%r4];
	add.s32 %r6, %r1, -1;
	shl.b32 %r7, %r6, 2;
	add.s32 %r8, %r3, %r7;
	ld.shared.u32 %r9, [%r8];
	ld.shared.u32 %r10, [%r4+4];
	mov.u32 %r11, %ntid.x;
	not.b32 %r12, %r1;
	add.s32 %r13, %r11, %r12;
	shl.b32 %r14, %r13, 2;
	add.s32 %r15, %r3, %r14;
	ld.shared.u32 %r16, [%r15];
	ret;
}
)");
  LaunchBounds lb(*a.function, *a.pa, *a.symbols);
  // s[t] with t < 256 exactly: always inside (an empty condition).
  auto always = lb.inBoundsWhen(a.access("ld.shared.u32", 0), "s");
  REQUIRE(always);
  CHECK(always->empty());
  // s[t - 1]: thread 0's index wraps around, so it is not bounded at all.
  CHECK(lb.of("%r6").unbounded);
  CHECK_FALSE(lb.inBoundsWhen(a.access("ld.shared.u32", 1), "s"));
  // s[t + 1]: thread 255 reads past the end at every launch: no condition can hold.
  CHECK_FALSE(lb.inBoundsWhen(a.access("ld.shared.u32", 2), "s"));
  // s[blockDim.x - 1 - t] as nvcc writes it (ntid + not(t)): always inside.
  auto reversed = lb.inBoundsWhen(a.access("ld.shared.u32", 3), "s");
  REQUIRE(reversed);
  CHECK(reversed->empty());
}

namespace {
// Loads in[clamp(y + dy) * stride + clamp(x + dx)] (clamp to [0, n - 1], x = %tid.x, y = %tid.y)
// for each (dy, dx) of `taps`, each through registers of its own, as nvcc writes a 2-D stencil's
// taps; `stride` is "%r1" (n, a register) or a constant.
Analysed stencil2d(const std::vector<std::pair<int, int>>& taps, const std::string& stride) {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p0, .param .u32 n)
{
	.reg .b32 %r<8>;
	.reg .b32 %t<400>;
	.reg .b64 %rd<4>;
	.reg .b64 %u<400>;
	.reg .f32 %f<60>;
	ld.param.u64 %rd1, [p0];
	cvta.to.global.u64 %rd2, %rd1;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %tid.y;
	add.s32 %r4, %r1, -1;
)";
  int t = 0, u = 0, f = 0;
  for (auto [dy, dx] : taps) {
    auto T = [&](int k) { return "%t" + std::to_string(t + k); };
    auto U = [&](int k) { return "%u" + std::to_string(u + k); };
    s += "\tadd.s32 " + T(0) + ", %r3, " + std::to_string(dy) + ";\n\tmax.s32 " + T(1) + ", " + T(0) +
         ", 0;\n\tmin.s32 " + T(2) + ", " + T(1) + ", %r4;\n\tmul.wide.s32 " + U(0) + ", " + T(2) + ", " + stride +
         ";\n";
    s += "\tadd.s32 " + T(3) + ", %r2, " + std::to_string(dx) + ";\n\tmax.s32 " + T(4) + ", " + T(3) +
         ", 0;\n\tmin.s32 " + T(5) + ", " + T(4) + ", %r4;\n\tcvt.s64.s32 " + U(1) + ", " + T(5) + ";\n";
    s += "\tadd.s64 " + U(2) + ", " + U(0) + ", " + U(1) + ";\n\tshl.b64 " + U(3) + ", " + U(2) + ", 2;\n\tadd.s64 " +
         U(4) + ", %rd2, " + U(3) + ";\n\tld.global.f32 %f" + std::to_string(f++) + ", [" + U(4) + "];\n";
    t += 6;
    u += 5;
  }
  return analyseModule(s + "\tret;\n}\n");
}
std::vector<std::pair<int, int>> square(int radius) {
  std::vector<std::pair<int, int>> taps;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) taps.emplace_back(dy, dx);
  return taps;
}
}  // namespace

TEST_CASE("address families: a 2-D stencil's taps are one family in two constants, checked at its corners",
          "[analysis]") {
  auto extremes = [](const Analysed& a) {
    std::vector<const AccessSite*> all;
    for (const auto& s : a.pa->accesses()) all.push_back(&s);
    std::vector<std::vector<size_t>> out;
    for (const AddressFamily& f : addressFamilies(*a.function, *a.cfg, a.pa->registers(), all)) {
      std::vector<size_t> e;
      for (const auto& x : f.extremes) e.push_back(x.access->statement);
      out.push_back(e);
      CHECK(f.members.size() >= 3);
    }
    return out;
  };
  // Rows n floats apart (n a register, of either sign as far as the PTX says): the 7 x 7 taps
  // are one family, checked at its four corners (-3,-3), (3,-3), (-3,3), (3,3): taps 0, 42, 6, 48
  // (the first constant found, the column's, varies slowest).
  auto a = stencil2d(square(3), "%r1");
  auto load = [&](int n) { return a.access("ld.global.f32", n).statement; };
  CHECK(extremes(a) == std::vector<std::vector<size_t>>{{load(0), load(42), load(6), load(48)}});
  // Rows a constant apart: both constants raise the address, two checks.
  auto b = stencil2d(square(1), "1024");
  auto loadB = [&](int n) { return b.access("ld.global.f32", n).statement; };
  CHECK(extremes(b) == std::vector<std::vector<size_t>>{{loadB(0), loadB(8)}});
  // A cross has no corners among its taps: the first tap's column (dy = -1, 0, 1; n of either
  // sign) is a family in one constant, checked at its ends; the row's two other taps are none.
  auto c = stencil2d({{-1, 0}, {0, -1}, {0, 0}, {0, 1}, {1, 0}}, "%r1");
  auto loadC = [&](int n) { return c.access("ld.global.f32", n).statement; };
  CHECK(extremes(c) == std::vector<std::vector<size_t>>{{loadC(0), loadC(4)}});
  // One column, three rows, n a register: a family in one constant of either direction, checked
  // at its least and greatest row.
  auto d = stencil2d({{-1, 0}, {0, 0}, {1, 0}}, "%r1");
  auto loadD = [&](int n) { return d.access("ld.global.f32", n).statement; };
  CHECK(extremes(d) == std::vector<std::vector<size_t>>{{loadD(0), loadD(2)}});
}

namespace {

// Three loads of one base, each under its own condition, as nvcc unrolls
// `for (r = 0; r < 24; r += 8) if (y + r < rows) s += in[size_t(y + r) * cols + x];`. `between`
// goes into the second guarded block, before its load; `after` after the last; `cols` makes the
// row length (a 64-bit %rd4 from the 32-bit %r2).
std::string guardedRows(const std::string& between = "", const std::string& after = "",
                        const std::string& cols = "cvt.s64.s32 %rd4, %r2;") {
  std::string s = R"(.version 8.0
.target sm_80
.address_size 64
.func side()
{
	ret;
}
.visible .entry k(.param .u64 p0, .param .u32 rows, .param .u32 cols)
{
	.reg .pred %p<8>;
	.reg .b32 %r<16>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<32>;
	ld.param.u64 %rd1, [p0];
	ld.param.u32 %r1, [rows];
	ld.param.u32 %r2, [cols];
	cvta.to.global.u64 %rd3, %rd1;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %tid.y;
	COLS
	cvt.s64.s32 %rd5, %r3;
	setp.ge.s32 %p1, %r4, %r1;
	@%p1 bra $L__BB0_2;
	cvt.s64.s32 %rd6, %r4;
	mul.lo.s64 %rd7, %rd6, %rd4;
	add.s64 %rd8, %rd7, %rd5;
	shl.b64 %rd9, %rd8, 2;
	add.s64 %rd10, %rd3, %rd9;
	ld.global.f32 %f1, [%rd10];
$L__BB0_2:
	add.s32 %r5, %r4, 8;
	setp.ge.s32 %p2, %r5, %r1;
	@%p2 bra $L__BB0_4;
	BETWEEN
	cvt.s64.s32 %rd11, %r5;
	mul.lo.s64 %rd12, %rd11, %rd4;
	add.s64 %rd13, %rd12, %rd5;
	shl.b64 %rd14, %rd13, 2;
	add.s64 %rd15, %rd3, %rd14;
	ld.global.f32 %f2, [%rd15];
$L__BB0_4:
	add.s32 %r6, %r4, 16;
	setp.ge.s32 %p3, %r6, %r1;
	@%p3 bra $L__BB0_6;
	cvt.s64.s32 %rd16, %r6;
	mul.lo.s64 %rd17, %rd16, %rd4;
	add.s64 %rd18, %rd17, %rd5;
	shl.b64 %rd19, %rd18, 2;
	add.s64 %rd20, %rd3, %rd19;
	ld.global.f32 %f3, [%rd20];
$L__BB0_6:
	AFTER
	ret;
}
)";
  auto put = [&](const std::string& key, const std::string& text) { s.replace(s.find(key), key.size(), text); };
  put("COLS", cols);
  put("AFTER", after);
  put("BETWEEN", between);
  return s;
}

std::vector<AddressFamily> guardedOf(const Analysed& a) {
  std::vector<const AccessSite*> all;
  for (const auto& s : a.pa->accesses()) all.push_back(&s);
  return guardedFamilies(*a.function, *a.cfg, *a.pa, all);
}

size_t statementWith(const Analysed& a, const std::string& text) {
  for (size_t i = 0; i < a.function->body.size(); ++i)
    if (const auto* in = std::get_if<Instruction>(&a.function->body[i]); in && printStatement(*in) == text) return i;
  FAIL("no statement " << text);
  throw;
}

}  // namespace

TEST_CASE("guarded families: loads each under its own condition, tested at their extremes before the first",
          "[analysis]") {
  auto a = analyseModule(guardedRows());
  auto families = guardedOf(a);
  REQUIRE(families.size() == 1);
  const AddressFamily& f = families[0];
  size_t l0 = a.access("ld.global.f32", 0).statement, l1 = a.access("ld.global.f32", 1).statement,
         l2 = a.access("ld.global.f32", 2).statement;
  CHECK(f.members.size() == 3);
  REQUIRE(f.region);
  // From the first condition's branch to the label after the last load.
  CHECK(f.region->from == statementWith(a, "@%p1 bra $L__BB0_2;"));
  CHECK(std::get<Label>(a.function->body[f.region->to]).name == "$L__BB0_6");
  // The extremes are r = 0 and r = 16, both made again at the region's start (all of their
  // address is made inside it): r = 16's from its add on.
  REQUIRE(f.extremes.size() == 2);
  CHECK(f.extremes[0].access->statement == l0);
  CHECK(f.extremes[1].access->statement == l2);
  CHECK(f.extremes[0].recomputed.size() == 5);
  CHECK(f.extremes[1].recomputed.size() == 6);
  CHECK(f.extremes[1].recomputed.front() == statementWith(a, "add.s32 %r6, %r4, 16;"));
  CHECK(a.pa->defs()[f.baseDef].reg == "%rd1");
  (void)l1;
  // The same loads in one block are no family across guards (addressFamilies' own).
}

TEST_CASE("guarded families: none where the region calls, waits, is entered inside, or a product may wrap",
          "[analysis]") {
  // A call in the region may free the memory.
  CHECK(guardedOf(analyseModule(guardedRows("call.uni side;"))).empty());
  // A barrier: threads of a block may run different copies of the region.
  CHECK(guardedOf(analyseModule(guardedRows("bar.sync 0;"))).empty());
  // A warp-wide operation likewise.
  CHECK(guardedOf(analyseModule(guardedRows("shfl.sync.idx.b32 %r7, %r3, 0, 31, -1;"))).empty());
  // Entered elsewhere than at its start: a branch back from after the last load to the third
  // condition leaves two loads, and two are no family.
  CHECK(guardedOf(analyseModule(guardedRows("", "setp.eq.s32 %p4, %r3, 0;\n\t@%p4 bra $L__BB0_4;"))).empty());
  // A row length loaded from memory (64 bits): the product of the row by it may wrap.
  CHECK(guardedOf(analyseModule(guardedRows("", "", "ld.global.u64 %rd4, [%rd3];"))).empty());
  // The row redefined inside the region: the expression is not the same one.
  CHECK(guardedOf(analyseModule(guardedRows("add.s32 %r4, %r4, 1;"))).empty());
}

TEST_CASE("guarded families: one address register at several offsets, each under its own condition",
          "[analysis]") {
  // for (j = 0; j < 3; ++j) if (i + j < n) s += a[i + j]: nvcc folds j into the immediate.
  auto tail = [](const std::string& between) {
    return analyse(R"(
	ld.param.u64 %rd1, [p0];
	cvta.to.global.u64 %rd2, %rd1;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mul.wide.s32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra $T1;
	ld.global.f32 %f1, [%rd4];
$T1:
	add.s32 %r3, %r2, 1;
	setp.ge.s32 %p2, %r3, %r1;
	@%p2 bra $T2;
)" + between + R"(
	ld.global.f32 %f2, [%rd4+4];
$T2:
	add.s32 %r4, %r2, 2;
	setp.ge.s32 %p3, %r4, %r1;
	@%p3 bra $T3;
	ld.global.f32 %f3, [%rd4+8];
$T3:
)");
  };
  auto a = tail("");
  auto families = guardedOf(a);
  REQUIRE(families.size() == 1);
  const AddressFamily& f = families[0];
  CHECK(f.oneAddress);
  CHECK(f.members.size() == 3);
  CHECK(f.extremes.empty());
  REQUIRE(f.region);
  CHECK(f.region->from == statementWith(a, "@%p1 bra $T1;"));
  CHECK(std::get<Label>(a.function->body[f.region->to]).name == "$T3");
  // The register written between: its value at the region's start is not the second load's.
  CHECK(guardedOf(tail("add.s64 %rd4, %rd4, 4;")).empty());
}

TEST_CASE("launch bounds: a branch on the thread's index bounds it where it guards", "[analysis]") {
  // A halo: threads below 4 store 256 elements on (taken edge); threads at or past 8 in y skip a
  // store (the fall-through of an or.pred that does not hold bounds both sides).
  auto a = analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
	.reg .pred %p<6>;
	.reg .b32 %r<12>;
	.shared .align 4 .b8 tile[1056];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	shl.b32 %r3, %r1, 2;
	mov.u32 %r4, tile;
	add.s32 %r5, %r4, %r3;
	st.shared.u32 [%r5+16], %r1;
	setp.lt.u32 %p1, %r1, 4;
	@%p1 bra $L__halo;
	bra.uni $L__done;
$L__halo:
	st.shared.u32 [%r5+1040], %r1;
$L__done:
	setp.gt.u32 %p2, %r2, 7;
	setp.ge.s32 %p3, %r1, 32;
	or.pred %p4, %p2, %p3;
	@%p4 bra $L__end;
	st.shared.u32 [%r5], %r2;
$L__end:
	ret;
}
)");
  ThreadGuards guards(*a.function, *a.cfg, *a.pa);
  CHECK(guards.at(a.access("st.shared.u32", 0).statement) == ThreadLimits{-1, -1, -1});
  CHECK(guards.at(a.access("st.shared.u32", 1).statement) == ThreadLimits{3, -1, -1});
  CHECK(guards.at(a.access("st.shared.u32", 2).statement) == ThreadLimits{31, 7, -1});
  // The halo's store past the block's 256 elements is inside the tile for those threads, at
  // every launch; for every thread, only where the block has at most 4.
  LaunchBounds guarded(*a.function, *a.pa, *a.symbols, ThreadLimits{3, -1, -1});
  auto halo = guarded.inBoundsWhen(a.access("st.shared.u32", 1), "tile");
  REQUIRE(halo);
  CHECK(halo->empty());
  LaunchBounds any(*a.function, *a.pa, *a.symbols);
  auto unguarded = any.inBoundsWhen(a.access("st.shared.u32", 1), "tile");
  REQUIRE(unguarded);
  REQUIRE(unguarded->size() == 1);
  // (blockDim.x <= 4: a block of a warp or more meets it only as 1 x 32, since the kernel reads
  // %tid.y; a kernel that reads only x has no such block.)
  CHECK(any.plausible(*unguarded->begin()));
  auto b = analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<6>;
	.shared .align 4 .b8 tile[1056];
	mov.u32 %r1, %tid.x;
	shl.b32 %r3, %r1, 2;
	mov.u32 %r4, tile;
	add.s32 %r5, %r4, %r3;
	st.shared.u32 [%r5+1040], %r1;
	ret;
}
)");
  LaunchBounds xOnly(*b.function, *b.pa, *b.symbols);
  auto past = xOnly.inBoundsWhen(b.access("st.shared.u32", 0), "tile");
  REQUIRE(past);
  REQUIRE(past->size() == 1);
  CHECK_FALSE(xOnly.plausible(*past->begin()));
}

TEST_CASE("launch bounds: .maxntid bounds the block's threads, not each dimension; a register never written is unbounded",
          "[analysis]") {
  // __launch_bounds__(256) is .maxntid 256, 1, 1, and the kernel may be launched as 1 x 256:
  // s[2 * blockDim.y + threadIdx.x] of 258 may be s[512] (a review's find). And a select of a
  // register nothing writes (its value is anything).
  auto a = analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k() .maxntid 256, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.shared .align 4 .b8 s[1032];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.y;
	shl.b32 %r3, %r2, 1;
	add.s32 %r4, %r3, %r1;
	shl.b32 %r5, %r4, 2;
	mov.u32 %r6, s;
	add.s32 %r7, %r6, %r5;
	st.shared.u32 [%r7], %r1;
	setp.eq.u32 %p1, %r1, 0;
	selp.u32 %r8, %r9, 0, %p1;
	add.s32 %r10, %r6, %r8;
	st.shared.u32 [%r10], %r1;
	ret;
}
)");
  LaunchBounds lb(*a.function, *a.pa, *a.symbols);
  auto byRows = lb.inBoundsWhen(a.access("st.shared.u32", 0), "s");
  REQUIRE(byRows);
  CHECK_FALSE(byRows->empty());  // only for some launches: 8 ntid.y + 4 ntid.x <= 1032 + 8
  CHECK(lb.of("%r8").unbounded);  // one side of the select is %r9, which nothing writes
  // Saturating arithmetic clamps: no bound (a second review's find).
  auto sat = analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<4>;
	mov.u32 %r1, 4;
	add.sat.s32 %r2, %r1, 1073741824;
	add.s32 %r3, %r1, 1073741824;
	ret;
}
)");
  LaunchBounds satBounds(*sat.function, *sat.pa, *sat.symbols);
  CHECK(satBounds.of("%r2").unbounded);
  CHECK_FALSE(satBounds.of("%r3").unbounded);
  CHECK_FALSE(ValueRanges(*sat.function, *sat.pa).of("%r2"));
  CHECK_FALSE(lb.inBoundsWhen(a.access("st.shared.u32", 1), "s"));
  auto moved = analyseModule(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k() .maxntid 128, 1, 1
{
	.reg .b32 %r<4>;
	mov.u32 %r1, %tid.y;
	mov.u32 %r2, %tid.x;
	ret;
}
)");
  ValueRanges r(*moved.function, *moved.pa);
  REQUIRE(r.of("%r1"));
  CHECK(r.of("%r1")->hi == 127);  // a 1 x 128 block
  CHECK(r.of("%r2")->hi == 127);
}
