#include "instrument/Sequences.h"

#include <fmt/format.h>

#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

namespace abi = cucatch::abi;

namespace {
// Metadata of "no allocation known": base 0, size all of memory, live, untagged.
constexpr const char* kUnknownSize = "0xFFFFFFFFFFFFFFFF";
constexpr uint32_t kLiveMeta = abi::kBstLive << 16;  // verdict 0, tag 0, state live
}  // namespace

std::string guardPrefix(const std::string& predicate, bool negated) {
  if (predicate.empty()) return "";
  return fmt::format("@{}{} ", negated ? "!" : "", predicate);
}

std::string declareMetadata(const std::string& prefix, size_t count64, size_t count32) {
  std::string s;
  if (count64) s += fmt::format(".reg .b64 {}d<{}>;\n", prefix, count64);
  if (count32) s += fmt::format(".reg .b32 {}m<{}>;\n", prefix, count32);
  return s;
}

std::string functionPrologue(const FunctionRegs& r) {
  return fmt::format(
      ".reg .b64 {bst}, {l1};\n"
      ".reg .pred {on};\n"
      ".reg .b64 %__cc_t<{n64}>;\n"
      ".reg .b32 %__cc_u<{n32}>;\n"
      ".reg .pred %__cc_q<{np}>;\n"
      "ld.global.u64 {bst}, [{state}+{bstOff}];\n"
      "ld.global.u64 {l1}, [{state}+{l1Off}];\n"
      "setp.ne.u64 {on}, {bst}, 0;\n",
      fmt::arg("bst", r.bst), fmt::arg("l1", r.shadowL1), fmt::arg("on", r.enabled),
      fmt::arg("n64", FunctionRegs::kScratch64), fmt::arg("n32", FunctionRegs::kScratch32),
      fmt::arg("np", FunctionRegs::kScratchPred), fmt::arg("state", CUCATCH_STATE_SYMBOL),
      fmt::arg("bstOff", abi::kStateBstOffset), fmt::arg("l1Off", abi::kStateShadowL1Offset));
}

std::string unknownMetadata(const MetadataRegs& m, const std::string& g) {
  return fmt::format("{g}mov.u64 {b}, 0;\n{g}mov.u64 {s}, {all};\n{g}mov.u32 {m}, {live};\n", fmt::arg("g", g),
                     fmt::arg("b", m.base), fmt::arg("s", m.size), fmt::arg("m", m.meta),
                     fmt::arg("all", kUnknownSize), fmt::arg("live", kLiveMeta));
}

std::string copyMetadata(const MetadataRegs& to, const MetadataRegs& from, const std::string& g) {
  if (to.base == from.base) return {};
  return fmt::format("{g}mov.b64 {tb}, {fb};\n{g}mov.b64 {ts}, {fs};\n{g}mov.b32 {tm}, {fm};\n", fmt::arg("g", g),
                     fmt::arg("tb", to.base), fmt::arg("fb", from.base), fmt::arg("ts", to.size),
                     fmt::arg("fs", from.size), fmt::arg("tm", to.meta), fmt::arg("fm", from.meta));
}

std::string selectMetadata(const MetadataRegs& to, const MetadataRegs& a, const MetadataRegs& b,
                           const std::string& p, const std::string& g) {
  return fmt::format(
      "{g}selp.b64 {tb}, {ab}, {bb}, {p};\n{g}selp.b64 {ts}, {as}, {bs}, {p};\n{g}selp.b32 {tm}, {am}, {bm}, {p};\n",
      fmt::arg("g", g), fmt::arg("p", p), fmt::arg("tb", to.base), fmt::arg("ab", a.base),
      fmt::arg("bb", b.base), fmt::arg("ts", to.size), fmt::arg("as", a.size), fmt::arg("bs", b.size),
      fmt::arg("tm", to.meta), fmt::arg("am", a.meta), fmt::arg("bm", b.meta));
}

std::string symbolMetadata(const MetadataRegs& to, const std::string& symbol, uint64_t size,
                           const std::string& g) {
  return fmt::format("{g}mov.u64 {b}, {sym};\n{g}mov.u64 {s}, {size};\n{g}mov.u32 {m}, {live};\n", fmt::arg("g", g),
                     fmt::arg("b", to.base), fmt::arg("sym", symbol), fmt::arg("s", to.size),
                     fmt::arg("size", size), fmt::arg("m", to.meta), fmt::arg("live", kLiveMeta));
}

std::string readMetadata(const FunctionRegs& r, const MetadataRegs& to, const std::string& ptr,
                         const std::string& g) {
  // t0 tag, t1 untagged address, t2 first-level slot, t3 second-level table, t4 granule slot,
  // t5 entry address, t6/t7 base/size; u0 BST index, u1 entry tag|state, u2..u4 decoded,
  // u5 verdict; q0 shadow walk (tags 0..15), q1 direct index (tags 16..255), q2/q3 verdicts.
  // The verdict (state and temporal tag) is decided here, once per base definition: pointer
  // arithmetic never changes the tag, so every access through this base shares it.
  return fmt::format(
      "shr.u64 {t0}, {ptr}, {tagShift};\n"
      "and.b64 {t1}, {ptr}, {mask};\n"
      "shr.u64 {t2}, {t1}, {l1Shift};\n"
      "setp.ge.u64 {q1}, {t0}, {directTag};\n"
      "and.pred {q1}, {q1}, {on};\n"
      "setp.lt.u64 {q0}, {t2}, {l1Entries};\n"
      "and.pred {q0}, {q0}, {on};\n"
      "not.pred {q2}, {q1};\n"
      "and.pred {q0}, {q0}, {q2};\n"
      "mov.u32 {u0}, 0;\n"
      "shl.b64 {t2}, {t2}, 3;\n"
      "add.s64 {t2}, {t2}, {l1};\n"
      "@{q0} ld.global.u64 {t3}, [{t2}];\n"
      "shr.u64 {t4}, {t1}, {granuleShift};\n"
      "and.b64 {t4}, {t4}, {l2Mask};\n"
      "shl.b64 {t4}, {t4}, 2;\n"
      "@{q0} add.s64 {t4}, {t4}, {t3};\n"
      "@{q0} ld.global.u32 {u0}, [{t4}];\n"
      "@{q1} cvt.u32.u64 {u0}, {t0};\n"
      "mul.wide.u32 {t5}, {u0}, {entryBytes};\n"
      "add.s64 {t5}, {t5}, {bst};\n"
      "mov.u64 {t6}, 0;\n"
      "mov.u64 {t7}, {all};\n"
      "mov.u32 {u1}, {liveEntry};\n"
      "@{on} ld.global.v2.u64 {{{t6}, {t7}}}, [{t5}];\n"
      "@{on} ld.global.u32 {u1}, [{t5}+{metaOff}];\n"
      "and.b32 {u1}, {u1}, 65535;\n"
      "cvt.u32.u64 {u2}, {t0};\n"
      "and.b32 {u3}, {u1}, 255;\n"
      "shr.u32 {u4}, {u1}, 8;\n"
      "mov.u32 {u5}, 0;\n"
      "setp.ne.u32 {q2}, {u2}, {u3};\n"
      "setp.ge.u32 {q3}, {u2}, {firstTemporal};\n"
      "and.pred {q2}, {q2}, {q3};\n"
      "setp.le.u32 {q3}, {u2}, {lastTemporal};\n"
      "and.pred {q2}, {q2}, {q3};\n"
      "@{q2} mov.u32 {u5}, {tagMismatch};\n"
      "setp.ne.u32 {q2}, {u4}, {live};\n"
      "@{q2} mov.u32 {u5}, {useAfterFree};\n"
      "shl.b32 {u1}, {u1}, 8;\n"
      "or.b32 {u5}, {u5}, {u1};\n"
      "{g}mov.b64 {b}, {t6};\n"
      "{g}mov.b64 {s}, {t7};\n"
      "{g}mov.b32 {m}, {u5};\n",
      fmt::arg("ptr", ptr), fmt::arg("g", g), fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)),
      fmt::arg("t2", r.t(2)), fmt::arg("t3", r.t(3)), fmt::arg("t4", r.t(4)), fmt::arg("t5", r.t(5)),
      fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)), fmt::arg("u0", r.u(0)), fmt::arg("u1", r.u(1)),
      fmt::arg("u2", r.u(2)), fmt::arg("u3", r.u(3)), fmt::arg("u4", r.u(4)), fmt::arg("u5", r.u(5)),
      fmt::arg("q0", r.q(0)), fmt::arg("q1", r.q(1)), fmt::arg("q2", r.q(2)), fmt::arg("q3", r.q(3)),
      fmt::arg("on", r.enabled), fmt::arg("bst", r.bst), fmt::arg("l1", r.shadowL1),
      fmt::arg("tagShift", abi::kTagShift), fmt::arg("mask", fmt::format("0x{:016X}", abi::kAddressMask)),
      fmt::arg("l1Shift", abi::kShadowL1Shift), fmt::arg("l1Entries", 1u << abi::kShadowL1Bits),
      fmt::arg("directTag", abi::kFirstDirectTag), fmt::arg("granuleShift", abi::kShadowGranuleShift),
      fmt::arg("l2Mask", (1u << abi::kShadowL2Bits) - 1), fmt::arg("entryBytes", abi::kBstEntryBytes),
      fmt::arg("metaOff", abi::kBstMetaOffset), fmt::arg("all", kUnknownSize),
      fmt::arg("liveEntry", abi::kBstLive << 8), fmt::arg("live", abi::kBstLive),
      fmt::arg("firstTemporal", abi::kFirstTemporalTag), fmt::arg("lastTemporal", abi::kLastTemporalTag),
      fmt::arg("tagMismatch", abi::kErrorTagMismatch), fmt::arg("useAfterFree", abi::kErrorUseAfterFree),
      fmt::arg("b", to.base), fmt::arg("s", to.size), fmt::arg("m", to.meta));
}

std::string safetyCheck(const FunctionRegs& r, const MetadataRegs& m, const CheckSite& c,
                        const std::string& guardPredicate, bool guardNegated) {
  // Fast path: t0 the address accessed, t1 its distance from the base, t2 the last valid
  // start; q0 the violation (out of bounds, or the base's verdict). The pointer's tag is only
  // decoded on the slow path, for the report.
  std::string s = fmt::format(
      "and.b64 {untagged}, {ptr}, {mask};\n"
      "add.s64 {t0}, {untagged}, {offset};\n"
      "sub.s64 {t1}, {t0}, {base};\n"
      "sub.s64 {t2}, {size}, {accessSize};\n"
      "setp.gt.u64 {q0}, {t1}, {t2};\n"
      "setp.lt.u64 {q1}, {size}, {accessSize};\n"
      "or.pred {q0}, {q0}, {q1};\n"
      "and.b32 {u0}, {meta}, 255;\n"
      "setp.ne.u32 {q1}, {u0}, 0;\n"
      "or.pred {q0}, {q0}, {q1};\n",
      fmt::arg("untagged", c.untagged), fmt::arg("ptr", c.pointer),
      fmt::arg("mask", fmt::format("0x{:016X}", abi::kAddressMask)), fmt::arg("offset", c.offset),
      fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)), fmt::arg("u0", r.u(0)),
      fmt::arg("q0", r.q(0)), fmt::arg("q1", r.q(1)), fmt::arg("base", m.base), fmt::arg("size", m.size),
      fmt::arg("meta", m.meta), fmt::arg("accessSize", c.size));
  if (!guardPredicate.empty()) {
    // A predicated-off access is not checked.
    if (guardNegated)
      s += fmt::format("not.pred {q1}, {g};\nand.pred {q0}, {q0}, {q1};\n", fmt::arg("q0", r.q(0)),
                       fmt::arg("q1", r.q(1)), fmt::arg("g", guardPredicate));
    else
      s += fmt::format("and.pred {}, {}, {};\n", r.q(0), r.q(0), guardPredicate);
  }
  s += fmt::format(
      "@!{q0} bra.uni {ok};\n"
      "{{\n"
      ".param .b32 __cc_arg0;\n.param .b64 __cc_arg1;\n.param .b64 __cc_arg2;\n.param .b64 __cc_arg3;\n"
      ".param .b32 __cc_arg4;\n.param .b32 __cc_arg5;\n.param .b32 __cc_arg6;\n.param .b32 __cc_arg7;\n"
      "shr.u64 {t3}, {ptr}, {tagShift};\n"
      "cvt.u32.u64 {u1}, {t3};\n"
      "st.param.b32 [__cc_arg0], {site};\n"
      "st.param.b64 [__cc_arg1], {t0};\n"
      "st.param.b64 [__cc_arg2], {base};\n"
      "st.param.b64 [__cc_arg3], {size};\n"
      "st.param.b32 [__cc_arg4], {info};\n"
      "st.param.b32 [__cc_arg5], {meta};\n"
      "st.param.b32 [__cc_arg6], {u1};\n"
      "st.param.b32 [__cc_arg7], {unit};\n"
      "call.uni {report}, (__cc_arg0, __cc_arg1, __cc_arg2, __cc_arg3, __cc_arg4, __cc_arg5, __cc_arg6, __cc_arg7);\n"
      "}}\n"
      "{ok}:\n",
      fmt::arg("q0", r.q(0)), fmt::arg("ok", c.okLabel), fmt::arg("site", c.site), fmt::arg("unit", static_cast<int32_t>(c.unit))  /* a b32 immediate must fit in 32 signed bits */, fmt::arg("t0", r.t(0)),
      fmt::arg("t3", r.t(3)), fmt::arg("u1", r.u(1)), fmt::arg("ptr", c.pointer),
      fmt::arg("tagShift", abi::kTagShift), fmt::arg("base", m.base), fmt::arg("size", m.size),
      fmt::arg("info", (c.size << 8) | c.accessFlags), fmt::arg("meta", m.meta),
      fmt::arg("report", CUCATCH_REPORT_FUNCTION));
  return s;
}

std::string moduleDeclarations() {
  return fmt::format(
      ".weak .global .align 8 .b8 {state}[{bytes}];\n"
      ".weak .global .align 4 .u32 {marker} = {version};\n",
      fmt::arg("state", CUCATCH_STATE_SYMBOL), fmt::arg("bytes", abi::kStateBytes),
      fmt::arg("marker", CUCATCH_MARKER_SYMBOL), fmt::arg("version", abi::kAbiVersion));
}

std::string reportFunction() {
  // Writes an ErrorRecord into the host-mapped error buffer and, unless the continue flag is
  // set, traps; the fence makes the record visible to the host before the context dies.
  return fmt::format(
      ".weak .func {report}(.param .b32 site, .param .b64 address, .param .b64 base, .param .b64 size,"
      " .param .b32 info, .param .b32 meta, .param .b32 tag, .param .b32 unit)\n"
      "{{\n"
      ".reg .pred %p<3>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n"
      "ld.global.u64 %rd1, [{state}+{bufOff}];\n"
      "setp.eq.u64 %p1, %rd1, 0;\n"
      "@%p1 bra.uni $__cc_decide;\n"
      "atom.global.add.u32 %r1, [%rd1], 1;\n"
      "ld.global.u32 %r2, [%rd1+4];\n"
      "setp.ge.u32 %p2, %r1, %r2;\n"
      "@%p2 bra.uni $__cc_decide;\n"
      "mul.wide.u32 %rd2, %r1, {recBytes};\n"
      "add.s64 %rd2, %rd2, %rd1;\n"
      "add.s64 %rd2, %rd2, {headerBytes};\n"
      "ld.param.u32 %r3, [site];\nst.global.u32 [%rd2], %r3;\n"
      "ld.param.u32 %r3, [info];\nst.global.u32 [%rd2+4], %r3;\n"
      "ld.param.u64 %rd3, [address];\nst.global.u64 [%rd2+8], %rd3;\n"
      "ld.param.u64 %rd3, [base];\nst.global.u64 [%rd2+16], %rd3;\n"
      "ld.param.u64 %rd3, [size];\nst.global.u64 [%rd2+24], %rd3;\n"
      "ld.param.u32 %r3, [meta];\nld.param.u32 %r6, [tag];\nshl.b32 %r6, %r6, {tagShift};\n"
      "or.b32 %r3, %r3, %r6;\nst.global.u32 [%rd2+32], %r3;\n"
      "ld.param.u32 %r3, [unit];\nst.global.u32 [%rd2+36], %r3;\n"
      "mov.u32 %r4, %ctaid.x;\nst.global.u32 [%rd2+40], %r4;\n"
      "mov.u32 %r4, %ctaid.y;\nst.global.u32 [%rd2+44], %r4;\n"
      "mov.u32 %r4, %ctaid.z;\nst.global.u32 [%rd2+48], %r4;\n"
      "mov.u32 %r4, %tid.x;\nst.global.u32 [%rd2+52], %r4;\n"
      "mov.u32 %r4, %tid.y;\nst.global.u32 [%rd2+56], %r4;\n"
      "mov.u32 %r4, %tid.z;\nst.global.u32 [%rd2+60], %r4;\n"
      "membar.sys;\n"
      "$__cc_decide:\n"
      "ld.global.u32 %r5, [{state}+{flagsOff}];\n"
      "and.b32 %r5, %r5, {continueFlag};\n"
      "setp.ne.u32 %p1, %r5, 0;\n"
      "@%p1 bra.uni $__cc_done;\n"
      "trap;\n"
      "$__cc_done:\n"
      "ret;\n"
      "}}\n",
      fmt::arg("report", CUCATCH_REPORT_FUNCTION), fmt::arg("state", CUCATCH_STATE_SYMBOL),
      fmt::arg("bufOff", abi::kStateErrorBufferOffset), fmt::arg("flagsOff", abi::kStateFlagsOffset), fmt::arg("tagShift", abi::kMetaPointerTagShift),
      fmt::arg("recBytes", abi::kErrorRecordBytes), fmt::arg("headerBytes", abi::kErrorHeaderBytes),
      fmt::arg("continueFlag", abi::kFlagContinue));
}

}  // namespace cucatch::instrument
