#include "instrument/Sequences.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

namespace abi = cucatch::abi;

namespace {
constexpr const char* kReportLabel = "$__cc_report";
// Metadata of "no allocation known": base 0, size all of memory, live, untagged.
constexpr const char* kUnknownSize = "0xFFFFFFFFFFFFFFFF";
constexpr uint32_t kLiveMeta = abi::kBstLive << abi::kMetaStateShift;  // verdict 0, tag 0, state live
constexpr uint32_t kSharedWindowMeta = abi::kMetaStateSharedWindow << abi::kMetaStateShift;
// A predicated-off access is not checked: the violation q0 is and-ed with the access's guard.
std::string guardViolation(const FunctionRegs& r, const std::string& guardPredicate, bool guardNegated) {
  if (guardPredicate.empty()) return {};
  if (guardNegated)
    return fmt::format("not.pred {q1}, {g};\nand.pred {q0}, {q0}, {q1};\n", fmt::arg("q0", r.q(0)),
                       fmt::arg("q1", r.q(1)), fmt::arg("g", guardPredicate));
  return fmt::format("and.pred {}, {}, {};\n", r.q(0), r.q(0), guardPredicate);
}

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
      ".reg .b64 {bst}, {root};\n"
      ".reg .pred {on};\n"
      ".reg .b64 %__cc_t<{n64}>;\n"
      ".reg .b32 %__cc_u<{n32}>;\n"
      ".reg .pred %__cc_q<{np}>;\n"
      "ld.const.u64 {bst}, [{state}+{bstOff}];\n"
      "ld.const.u64 {root}, [{state}+{rootOff}];\n"
      "setp.ne.u64 {on}, {bst}, 0;\n",
      fmt::arg("bst", r.bst), fmt::arg("root", r.shadowRoot), fmt::arg("on", r.enabled),
      fmt::arg("n64", FunctionRegs::kScratch64), fmt::arg("n32", FunctionRegs::kScratch32),
      fmt::arg("np", FunctionRegs::kScratchPred), fmt::arg("state", CUCATCH_STATE_SYMBOL),
      fmt::arg("bstOff", abi::kStateBstOffset), fmt::arg("rootOff", abi::kStateShadowRootOffset));
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

// The metadata word of a variable's bounds: live, named by its index in the unit's objects.
static uint32_t variableMeta(uint8_t objectId) {
  return abi::kMetaStateVariable << abi::kMetaStateShift | static_cast<uint32_t>(objectId) << abi::kMetaTagShift;
}

std::string symbolMetadata(const MetadataRegs& to, const std::string& symbol, uint64_t size, uint8_t objectId,
                           const std::string& g) {
  return fmt::format("{g}mov.u64 {b}, {sym};\n{g}mov.u64 {s}, {size};\n{g}mov.u32 {m}, {meta};\n", fmt::arg("g", g),
                     fmt::arg("b", to.base), fmt::arg("sym", symbol), fmt::arg("s", to.size),
                     fmt::arg("size", size), fmt::arg("m", to.meta), fmt::arg("meta", variableMeta(objectId)));
}

std::string frameObjectMetadata(const MetadataRegs& to, const MetadataRegs& frame, uint64_t start, uint64_t size,
                                uint8_t objectId, const std::string& g) {
  return fmt::format("{g}add.u64 {b}, {fb}, {start};\n{g}mov.u64 {s}, {size};\n{g}mov.u32 {m}, {meta};\n",
                     fmt::arg("g", g), fmt::arg("b", to.base), fmt::arg("fb", frame.base), fmt::arg("start", start),
                     fmt::arg("s", to.size), fmt::arg("size", size), fmt::arg("m", to.meta),
                     fmt::arg("meta", variableMeta(objectId)));
}

std::string dynamicSharedMetadata(const FunctionRegs& r, const MetadataRegs& to, const std::string& symbol,
                                  uint8_t objectId, const std::string& g) {
  return fmt::format(
      "{g}mov.u64 {b}, {sym};\n{g}mov.u32 {u4}, %dynamic_smem_size;\n{g}cvt.u64.u32 {s}, {u4};\n"
      "{g}mov.u32 {m}, {meta};\n",
      fmt::arg("g", g), fmt::arg("b", to.base), fmt::arg("sym", symbol), fmt::arg("u4", r.u(4)),
      fmt::arg("s", to.size), fmt::arg("m", to.meta), fmt::arg("meta", variableMeta(objectId)));
}

std::string parameterMetadata(const MetadataRegs& to, const std::string& base, const std::string& size,
                              const std::string& meta, const std::string& g) {
  return fmt::format("{g}ld.param.b64 {tb}, [{base}];\n{g}ld.param.b64 {ts}, [{size}];\n{g}ld.param.b32 {tm}, [{meta}];\n",
                     fmt::arg("g", g), fmt::arg("tb", to.base), fmt::arg("base", base), fmt::arg("ts", to.size),
                     fmt::arg("size", size), fmt::arg("tm", to.meta), fmt::arg("meta", meta));
}

std::string passedMetadataArguments(const std::vector<std::string>& names, const MetadataRegs& from) {
  return fmt::format(".param .b64 {nb};\nst.param.b64 [{nb}], {b};\n.param .b64 {ns};\nst.param.b64 [{ns}], {s};\n"
                     ".param .b32 {nm};\nst.param.b32 [{nm}], {m};\n",
                     fmt::arg("nb", names.at(0)), fmt::arg("b", from.base), fmt::arg("ns", names.at(1)),
                     fmt::arg("s", from.size), fmt::arg("nm", names.at(2)), fmt::arg("m", from.meta));
}

std::string cvtaMetadata(const MetadataRegs& to, const MetadataRegs& from, const std::string& cvta,
                         const std::string& g, const std::string& rank) {
  return fmt::format("{g}{cvta} {tb}, {fb}{rank};\n{g}mov.b64 {ts}, {fs};\n{g}mov.b32 {tm}, {fm};\n", fmt::arg("g", g),
                     fmt::arg("cvta", cvta), fmt::arg("tb", to.base), fmt::arg("fb", from.base),
                     fmt::arg("rank", rank.empty() ? "" : ", " + rank), fmt::arg("ts", to.size),
                     fmt::arg("fs", from.size), fmt::arg("tm", to.meta), fmt::arg("fm", from.meta));
}

std::string localCvtaMetadata(const FunctionRegs& r, const MetadataRegs& to, const MetadataRegs& from) {
  // (`to` may be `from`: each register is read before it is written.)
  return fmt::format(
      "isspacep.local {q}, {fb};\n"
      "@{q} cvta.to.local.u64 {tb}, {fb};\n"
      "@!{q} mov.u64 {tb}, 0;\n"
      "@{q} mov.b64 {ts}, {fs};\n"
      "@!{q} mov.u64 {ts}, {all};\n"
      "@{q} mov.b32 {tm}, {fm};\n"
      "@!{q} mov.u32 {tm}, {live};\n",
      fmt::arg("q", r.q(2)), fmt::arg("tb", to.base), fmt::arg("fb", from.base), fmt::arg("ts", to.size),
      fmt::arg("fs", from.size), fmt::arg("tm", to.meta), fmt::arg("fm", from.meta), fmt::arg("all", kUnknownSize),
      fmt::arg("live", kLiveMeta));
}

namespace {

// After READMETADATA's walk (t1 the untagged address, t6/t7/u5 the metadata found): where t1 is
// in this block's shared window, the window's bounds as generic addresses instead. isspacep
// alone is not trusted to mean "at most 4 GiB above the window's generic base": an address
// that is not (another alias of the window) keeps what the walk found.
std::string sharedWindowMetadata(const FunctionRegs& r, const std::string& dynamicShared) {
  return fmt::format(
             "isspacep.shared {q2}, {t1};\n"
             "cvta.shared.u64 {t2}, 0;\n"
             "sub.s64 {t3}, {t1}, {t2};\n"
             "setp.lt.u64 {q3}, {t3}, 4294967296;\n"
             "and.pred {q2}, {q2}, {q3};\n",
             fmt::arg("q2", r.q(2)), fmt::arg("q3", r.q(3)), fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)),
             fmt::arg("t3", r.t(3))) +
         sharedWindowBounds({r.u(3), r.u(2)}, dynamicShared, r.q(3), guardPrefix(r.q(2), false)) +
         fmt::format(
             "@{q2} cvt.u64.u32 {t6}, {u3};\n"
             "@{q2} add.s64 {t6}, {t6}, {t2};\n"
             "@{q2} cvt.u64.u32 {t7}, {u2};\n"
             "@{q2} mov.u32 {u5}, {window};\n",
             fmt::arg("q2", r.q(2)), fmt::arg("t2", r.t(2)), fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)),
             fmt::arg("u2", r.u(2)), fmt::arg("u3", r.u(3)), fmt::arg("u5", r.u(5)),
             fmt::arg("window", kSharedWindowMeta));
}

// A generic address (t1, untagged) that isspacep.local places in the thread's local window:
// bounded by the kernel's own frame, the only local memory live while the kernel itself runs;
// where it has none, by an empty range at abi::kNoLiveLocal, above every address. No table
// describes local memory, and the table walk gave it entry 0, which passes everything there.
std::string liveFramesMetadata(const FunctionRegs& r, const LiveFrames& frames, const std::string& ptr,
                               const std::string& skip) {
  if (!frames.table.empty()) {
    // A device function: the frames live on the thread's stack are in its frame table (where
    // the function was given one). The lookup runs only for a pointer in the local window, and
    // is given its frame tag.
    return fmt::format(
        "isspacep.local {q2}, {t1};\n"
        "setp.ne.and.u64 {q2}, {table}, 0, {q2};\n"
        "@!{q2} bra {skip};\n"
        "shr.u64 {t2}, {ptr}, {frameTagShift};\n"
        "cvt.u32.u64 {u0}, {t2};\n"
        "and.b32 {u0}, {u0}, 255;\n"
        "{{\n"
        ".param .b64 __cc_fl_table;\n"
        ".param .b64 __cc_fl_address;\n"
        ".param .b32 __cc_fl_serial;\n"
        ".param .align 8 .b8 __cc_fl_bounds[24];\n"
        "st.param.b64 [__cc_fl_table], {table};\n"
        "st.param.b64 [__cc_fl_address], {t1};\n"
        "st.param.b32 [__cc_fl_serial], {u0};\n"
        "call (__cc_fl_bounds), {lookup}, (__cc_fl_table, __cc_fl_address, __cc_fl_serial);\n"
        "ld.param.b64 {t6}, [__cc_fl_bounds];\n"
        "ld.param.b64 {t7}, [__cc_fl_bounds+8];\n"
        "ld.param.b32 {u5}, [__cc_fl_bounds+16];\n"
        "}}\n"
        "{skip}:\n",
        fmt::arg("q2", r.q(2)), fmt::arg("t1", r.t(1)), fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)),
        fmt::arg("u5", r.u(5)), fmt::arg("table", frames.table), fmt::arg("lookup", frames.lookup),
        fmt::arg("skip", skip), fmt::arg("ptr", ptr), fmt::arg("t2", r.t(2)), fmt::arg("u0", r.u(0)),
        fmt::arg("frameTagShift", abi::kFrameTagShift));
  }
  std::string base = frames.frame.empty()
                         ? fmt::format("@{} mov.u64 {}, {};\n", r.q(2), r.t(6), abi::kNoLiveLocal)
                         : fmt::format("@{0} mov.u64 {1}, {2};\n@{0} cvta.local.u64 {1}, {1};\n", r.q(2), r.t(6), frames.frame);
  return fmt::format("isspacep.local {q2}, {t1};\n", fmt::arg("q2", r.q(2)), fmt::arg("t1", r.t(1))) + base +
         fmt::format("@{q2} mov.u64 {t7}, {bytes};\n"
                     "@{q2} mov.u32 {u5}, {meta};\n",
                     fmt::arg("q2", r.q(2)), fmt::arg("t7", r.t(7)), fmt::arg("u5", r.u(5)),
                     fmt::arg("bytes", frames.bytes),
                     fmt::arg("meta", abi::kMetaStateLiveFrames << abi::kMetaStateShift |
                                          static_cast<uint32_t>(frames.objectId) << abi::kMetaTagShift));
}

}  // namespace

std::string readMetadata(const FunctionRegs& r, const MetadataRegs& to, const std::string& ptr,
                         const std::string& g, const std::string& directLabel, DeviceHeapEntries heapEntries,
                         const std::string& dynamicShared, const LiveFrames& frames) {
  // t0 tag, t1 untagged address, t2 root slot (then the page's granule shift), t3 directory (then
  // the page entry, then its table), t4 page entry address (then the table word's),
  // t5 entry address, t6/t7 base/size; u0 BST index, u1 entry tag|state, u2 the pointer's tag,
  // u3 the page's granule shift in the walk, then u3/u4 the tag compared and the entry word expected, u5 the metadata word; q0 shadow walk,
  // q1 a device-heap entry, q2 verdict, q3 temporal tag.
  std::string heapTest, loadedLabel, heapRead;
  if (heapEntries == DeviceHeapEntries::FromL2) {
    heapTest = fmt::format("and.b32 {u3}, {u0}, {oddBelow256};\nsetp.eq.u32 {q1}, {u3}, 1;\n@{q1} bra {heap};\n",
                           fmt::arg("u3", r.u(3)), fmt::arg("u0", r.u(0)), fmt::arg("q1", r.q(1)),
                           fmt::arg("oddBelow256", static_cast<int32_t>(0xFFFFFF01u)),
                           fmt::arg("heap", directLabel + "_heap"));
    loadedLabel = directLabel + "_loaded:\n";
    heapRead = fmt::format(
        "bra.uni {done};\n"
        "{heap}:\n"
        "@{on} ld.global.cg.v2.u64 {{{t6}, {t7}}}, [{t5}];\n"
        "@{on} ld.global.cg.u32 {u1}, [{t5}+{metaOff}];\n"
        "bra.uni {loaded};\n"
        "{done}:\n",
        fmt::arg("done", directLabel + "_done"), fmt::arg("heap", directLabel + "_heap"),
        fmt::arg("loaded", directLabel + "_loaded"), fmt::arg("on", r.enabled), fmt::arg("t5", r.t(5)),
        fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)), fmt::arg("u1", r.u(1)), fmt::arg("metaOff", abi::kBstMetaOffset));
  }
  // Tags 16..255 are the BST index: such a pointer (every allocation's, while tags last)
  // branches over the shadow walk, whose loads would be predicated off but still issued: in a
  // kernel that reads one element per thread through three parameters, that was a third of
  // the instructions each thread ran.
  // The verdict (state and temporal tag) is decided here, once per base definition: pointer
  // arithmetic never changes the tag, so every access through this base shares it. It is not
  // zero where the entry word (tag | state << 8) differs from "live, with the pointer's tag",
  // the tag compared being the pointer's where it is temporal (1..15) and the entry's own
  // otherwise (untagged and direct pointers carry none to compare).
  return fmt::format(
      "shr.u64 {t0}, {ptr}, {tagShift};\n"
      "and.b64 {t1}, {ptr}, {mask};\n"
      "cvt.u32.u64 {u2}, {t0};\n"
      "mov.u32 {u0}, {u2};\n"
      "setp.lt.u32 {q0}, {u2}, {directTag};\n"
      "@!{q0} bra {direct};\n"
      // The shadow walk (cucatch_abi.h): root, directory, then the page's leaf at the page's
      // granule. Three dependent loads, for untagged and temporally tagged pointers only.
      "mov.u32 {u0}, 0;\n"
      "shr.u64 {t2}, {t1}, {rootShift};\n"
      "setp.lt.u64 {q0}, {t2}, {rootEntries};\n"
      "and.pred {q0}, {q0}, {on};\n"
      "shl.b64 {t2}, {t2}, 3;\n"
      "add.s64 {t2}, {t2}, {root};\n"
      "@{q0} ld.global.u64 {t3}, [{t2}];\n"
      "shr.u64 {t4}, {t1}, {pageShift};\n"
      "and.b64 {t4}, {t4}, {dirMask};\n"
      "shl.b64 {t4}, {t4}, 3;\n"
      "@{q0} add.s64 {t4}, {t4}, {t3};\n"
      "@{q0} ld.global.u64 {t3}, [{t4}];\n"
      "shr.u64 {t2}, {t3}, {entryShiftBit};\n"
      "cvt.u32.u64 {u3}, {t2};\n"
      "and.b64 {t3}, {t3}, {entryMask};\n"
      "and.b64 {t4}, {t1}, {pageMask};\n"
      "shr.u64 {t4}, {t4}, {u3};\n"
      "shl.b64 {t4}, {t4}, 2;\n"
      "@{q0} add.s64 {t4}, {t4}, {t3};\n"
      "@{q0} ld.global.u32 {u0}, [{t4}];\n"
      "{direct}:\n"
      "mul.wide.u32 {t5}, {u0}, {entryBytes};\n"
      "add.s64 {t5}, {t5}, {bst};\n"
      "mov.u64 {t6}, 0;\n"
      "mov.u64 {t7}, {all};\n"
      "mov.u32 {u1}, {liveEntry};\n"
      // A device-heap block's entry (odd, below 256), where this SM's L1 may hold a stale line of
      // it, is read from L2, out of the way (predicated loads of both kinds made every metadata
      // read slower; and even out of the way the branch costs registers: DeviceHeapEntries).
      "{heapTest}"
      "@{on} ld.global.v2.u64 {{{t6}, {t7}}}, [{t5}];\n"
      "@{on} ld.global.u32 {u1}, [{t5}+{metaOff}];\n"
      "{loadedLabel}"
      "and.b32 {u1}, {u1}, 65535;\n"
      "sub.u32 {u3}, {u2}, {firstTemporal};\n"
      "setp.lt.u32 {q3}, {u3}, {temporalTags};\n"
      "and.b32 {u3}, {u1}, 255;\n"
      "selp.b32 {u3}, {u2}, {u3}, {q3};\n"
      "or.b32 {u4}, {u3}, {liveEntry};\n"
      "setp.ne.u32 {q2}, {u1}, {u4};\n"
      "selp.u32 {u5}, {bad}, 0, {q2};\n"
      "shl.b32 {u1}, {u1}, 8;\n"
      "or.b32 {u5}, {u5}, {u1};\n"
      "{window}"
      "{g}mov.b64 {b}, {t6};\n"
      "{g}mov.b64 {s}, {t7};\n"
      "{g}mov.b32 {m}, {u5};\n"
      "{heapRead}",
      fmt::arg("ptr", ptr), fmt::arg("g", g), fmt::arg("direct", directLabel),
      fmt::arg("heapTest", heapTest), fmt::arg("loadedLabel", loadedLabel), fmt::arg("heapRead", heapRead),
      fmt::arg("t0", r.t(0)),
      fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)), fmt::arg("t3", r.t(3)), fmt::arg("t4", r.t(4)),
      fmt::arg("t5", r.t(5)), fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)), fmt::arg("u0", r.u(0)),
      fmt::arg("u1", r.u(1)), fmt::arg("u2", r.u(2)), fmt::arg("u3", r.u(3)), fmt::arg("u4", r.u(4)),
      fmt::arg("u5", r.u(5)), fmt::arg("q0", r.q(0)), fmt::arg("q1", r.q(1)), fmt::arg("q2", r.q(2)),
      fmt::arg("q3", r.q(3)), fmt::arg("on", r.enabled), fmt::arg("bst", r.bst), fmt::arg("root", r.shadowRoot),
      fmt::arg("tagShift", abi::kTagShift), fmt::arg("mask", fmt::format("0x{:016X}", abi::kGenericAddressMask)),
      fmt::arg("rootShift", abi::kShadowRootShift), fmt::arg("rootEntries", 1u << abi::kShadowRootBits),
      fmt::arg("pageShift", abi::kShadowPageShift), fmt::arg("dirMask", (1u << abi::kShadowDirBits) - 1),
      fmt::arg("entryShiftBit", abi::kShadowEntryShiftBit),
      fmt::arg("entryMask", fmt::format("0x{:016X}", abi::kShadowEntryAddressMask)),
      fmt::arg("pageMask", (1u << abi::kShadowPageShift) - 1),
      fmt::arg("directTag", abi::kFirstDirectTag), fmt::arg("entryBytes", abi::kBstEntryBytes),
      fmt::arg("metaOff", abi::kBstMetaOffset), fmt::arg("all", kUnknownSize),
      fmt::arg("liveEntry", abi::kBstLive << 8), fmt::arg("firstTemporal", abi::kFirstTemporalTag),
      fmt::arg("temporalTags", abi::kLastTemporalTag - abi::kFirstTemporalTag + 1),
      fmt::arg("bad", abi::kMetaVerdictBad), fmt::arg("b", to.base), fmt::arg("s", to.size), fmt::arg("m", to.meta),
      fmt::arg("window", (dynamicShared.empty() ? std::string() : sharedWindowMetadata(r, dynamicShared)) +
                             (frames.on ? liveFramesMetadata(r, frames, ptr, directLabel + "_frames") : std::string())));
}

namespace {

// q0: the `span` bytes at t0 are not all inside [base, base + size), or (with `meta`, a
// metadata word register) the base's verdict is not zero. t1 their distance from the base, t2
// the last valid start. (Unsigned: below the base fails too.)
std::string rangeViolation(const FunctionRegs& r, const std::string& base, const std::string& size, uint64_t span,
                           const std::string& meta) {
  // The limit t2 folds the base's terms into one number: size - span + 1, or 0 where the base's
  // verdict is bad or the object is smaller than the span (then every distance reaches it). They
  // depend on the base alone, so ptxas computes them once per base and span, and each access
  // is left with the distance and one 64-bit compare (6 SASS instructions with the branch and
  // the untag, where a separate verdict test made 7).
  std::string verdict =
      meta.empty() ? std::string()
                   : fmt::format("and.b32 {u0}, {meta}, 255;\nsetp.ne.or.u32 {q0}, {u0}, 0, {q0};\n",
                                 fmt::arg("u0", r.u(0)), fmt::arg("meta", meta), fmt::arg("q0", r.q(0)));
  return fmt::format(
      "sub.s64 {t1}, {t0}, {base};\n"
      "sub.s64 {t2}, {size}, {spanLess1};\n"
      "setp.lt.u64 {q0}, {size}, {span};\n"
      "{verdict}"
      "selp.b64 {t2}, 0, {t2}, {q0};\n"
      "setp.ge.u64 {q0}, {t1}, {t2};\n",
      fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)), fmt::arg("q0", r.q(0)),
      fmt::arg("base", base), fmt::arg("size", size), fmt::arg("span", span), fmt::arg("spanLess1", span - 1),
      fmt::arg("verdict", verdict));
}

// The same for `untagged` + `offset` (left in t0) against metadata `m`, its verdict included.
std::string globalViolation(const FunctionRegs& r, const MetadataRegs& m, const std::string& untagged, int64_t offset,
                            uint64_t span) {
  return fmt::format("add.s64 {}, {}, {};\n", r.t(0), untagged, offset) + rangeViolation(r, m.base, m.size, span, m.meta);
}

// To the out-of-line part of a check at `label` where q0 (the violation) is set. Plain bra:
// whether an access is in bounds differs between the threads of a warp, and .uni would promise
// that it does not.
std::string violationBranch(const FunctionRegs& r, const std::string& label) {
  return fmt::format("@{} bra {};\n", r.q(0), label);
}

// A range check (`test` leaves its violation in q0) whose group of checks runs out of line
// where it fails, and comes back to `okLabel` should none of them fail.
CheckCode rangeCheckCode(const FunctionRegs& r, std::string test, const CheckCode& group, const std::string& slowLabel,
                         const std::string& okLabel) {
  CheckCode code;
  code.inlined = std::move(test) + violationBranch(r, slowLabel) + okLabel + ":\n";
  code.outOfLine = slowLabel + ":\n" + group.inlined + "bra " + okLabel + ";\n" + group.outOfLine;
  return code;
}

}  // namespace

std::string untagPointer(const std::string& untagged, const std::string& pointer) {
  return fmt::format("and.b64 {}, {}, 0x{:016X};\n", untagged, pointer, abi::kGenericAddressMask);
}

namespace {

// The out-of-line part of a global check that failed: the values the report block reads, in
// fixed registers, then the branch to it (it never comes back). `info` sets u3, the info word.
// (The address is computed again here: the fast path's t0 would otherwise have to be copied to
// where the report block reads it, on the fast path.)
std::string globalFailingPart(const FunctionRegs& r, const MetadataRegs& m, const CheckSite& c, const std::string& info) {
  return fmt::format(
      "{label}:\n"
      "add.s64 {t0}, {untagged}, {offset};\n"
      "mov.u32 {u2}, {site};\n"
      "{info}"
      "mov.b64 {t3}, {ptr};\n"
      "mov.b64 {t6}, {base};\n"
      "mov.b64 {t7}, {size};\n"
      "mov.b32 {u1}, {meta};\n"
      "bra.uni {report};\n",
      fmt::arg("label", c.label), fmt::arg("t0", r.t(0)), fmt::arg("untagged", c.untagged),
      fmt::arg("offset", c.offset), fmt::arg("u2", r.u(2)), fmt::arg("site", c.site), fmt::arg("info", info),
      fmt::arg("t3", r.t(3)), fmt::arg("ptr", c.pointer), fmt::arg("t6", r.t(6)), fmt::arg("base", m.base),
      fmt::arg("t7", r.t(7)), fmt::arg("size", m.size), fmt::arg("u1", r.u(1)), fmt::arg("meta", m.meta),
      fmt::arg("report", kReportLabel));
}

}  // namespace

CheckCode safetyCheck(const FunctionRegs& r, const MetadataRegs& m, const CheckSite& c,
                      const std::string& guardPredicate, bool guardNegated) {
  // Fast path: untag, then globalViolation. The pointer's tag is only decoded in the report
  // block, for the report.
  CheckCode code;
  code.inlined = untagPointer(c.untagged, c.pointer) + globalViolation(r, m, c.untagged, c.offset, c.size) +
                 guardViolation(r, guardPredicate, guardNegated) + violationBranch(r, c.label);
  // A violating thread hands the report its values in fixed registers and branches to the
  // function's report block, which never comes back.
  code.outOfLine = globalFailingPart(r, m, c, fmt::format("mov.u32 {}, {};\n", r.u(3), (c.size << 8) | c.accessFlags));
  return code;
}

CheckCode extentCheck(const FunctionRegs& r, const MetadataRegs& m, const CheckSite& c, const std::string& count,
                      bool countIsRegister, uint64_t perUnit, uint64_t fixed, const std::string& guardPredicate,
                      bool guardNegated) {
  std::string bytes = countIsRegister ? fmt::format("cvt.u64.u32 {}, {};\n", r.t(4), count)
                                      : fmt::format("mov.u64 {}, {};\n", r.t(4), count);
  if (perUnit != 1) bytes += fmt::format("mul.lo.u64 {0}, {0}, {1};\n", r.t(4), perUnit);
  if (fixed != 0) bytes += fmt::format("add.u64 {0}, {0}, {1};\n", r.t(4), fixed);
  // The limit t2 = size - bytes + 1, or 0 where the verdict is bad or the bytes exceed the
  // object (every distance reaches it), as rangeViolation's with a span known here only.
  std::string test = fmt::format(
      "add.s64 {t0}, {untagged}, {offset};\n"
      "sub.s64 {t1}, {t0}, {base};\n"
      "add.s64 {t2}, {size}, 1;\n"
      "sub.s64 {t2}, {t2}, {t4};\n"
      "setp.lt.u64 {q0}, {size}, {t4};\n"
      "and.b32 {u0}, {meta}, 255;\n"
      "setp.ne.or.u32 {q0}, {u0}, 0, {q0};\n"
      "selp.b64 {t2}, 0, {t2}, {q0};\n"
      "setp.ge.u64 {q0}, {t1}, {t2};\n"
      "setp.ne.and.u64 {q0}, {t4}, 0, {q0};\n",
      fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)), fmt::arg("t4", r.t(4)),
      fmt::arg("q0", r.q(0)), fmt::arg("u0", r.u(0)), fmt::arg("untagged", c.untagged), fmt::arg("offset", c.offset),
      fmt::arg("base", m.base), fmt::arg("size", m.size), fmt::arg("meta", m.meta));
  CheckCode code;
  code.inlined = untagPointer(c.untagged, c.pointer) + bytes + test + guardViolation(r, guardPredicate, guardNegated) +
                 violationBranch(r, c.label);
  // The info word's size is the bytes (t4), at most 2^24 - 1.
  code.outOfLine = globalFailingPart(
      r, m, c,
      fmt::format("min.u64 {t5}, {t4}, 16777215;\n"
                  "cvt.u32.u64 {u3}, {t5};\n"
                  "shl.b32 {u3}, {u3}, 8;\n"
                  "or.b32 {u3}, {u3}, {flags};\n",
                  fmt::arg("t4", r.t(4)), fmt::arg("t5", r.t(5)), fmt::arg("u3", r.u(3)), fmt::arg("flags", c.accessFlags)));
  return code;
}

CheckCode safetyRangeCheck(const FunctionRegs& r, const MetadataRegs& m, const std::string& pointer,
                           const std::string& untagged, int64_t lowest, uint64_t span,
                           const std::string& guardPredicate, bool guardNegated, const CheckCode& group,
                           const std::string& slowLabel, const std::string& okLabel) {
  std::string s = untagPointer(untagged, pointer) + globalViolation(r, m, untagged, lowest, span) +
                  guardViolation(r, guardPredicate, guardNegated);
  return rangeCheckCode(r, std::move(s), group, slowLabel, okLabel);
}

std::string skipCheck(const std::string& inRange, const std::string& skipLabel) {
  return fmt::format("@{} bra {};\n", inRange, skipLabel);
}

std::string regionTestStart(const std::string& violation) {
  return fmt::format("setp.ne.u32 {}, 0, 0;\n", violation);
}

std::string regionFamilyTest(const FunctionRegs& r, const std::string& violation, const MetadataRegs& m,
                             const std::vector<std::string>& extremes, int64_t offset, uint64_t size) {
  std::string s;
  for (const std::string& e : extremes)
    s += untagPointer(r.t(3), e) + globalViolation(r, m, r.t(3), offset, size) +
         fmt::format("or.pred {0}, {0}, {1};\n", violation, r.q(0));
  return s;
}

std::string loopRangeStart(const FunctionRegs& r, const std::string& inRange, const std::string& variable,
                           bool isSigned, const std::string& bound, int64_t step) {
  // 64-bit arithmetic throughout: the 32-bit values cannot overflow it.
  const char* cvt = isSigned ? "cvt.s64.s32" : "cvt.u64.u32";
  std::string boundTo64 = bound.empty() || bound[0] != '%'
                              ? fmt::format("mov.b64 {}, {};\n", r.t(7), bound)
                              : fmt::format("{} {}, {};\n", cvt, r.t(7), bound);
  return fmt::format(
      "{cvt} {t6}, {var};\n"
      "{boundTo64}"
      "sub.s64 {t7}, {t7}, 1;\n"
      "max.s64 {t7}, {t7}, {t6};\n"
      "add.s64 {t5}, {t7}, {step};\n"
      "setp.le.s64 {ok}, {t5}, {max};\n",
      fmt::arg("cvt", cvt), fmt::arg("t6", r.t(6)), fmt::arg("var", variable), fmt::arg("boundTo64", boundTo64),
      fmt::arg("t7", r.t(7)), fmt::arg("t5", r.t(5)), fmt::arg("step", step), fmt::arg("ok", inRange),
      fmt::arg("max", isSigned ? int64_t{INT32_MAX} : int64_t{UINT32_MAX}));
}

std::string loopRangeAccess(const FunctionRegs& r, const std::string& inRange, const MetadataRegs& m,
                            const std::string& base, int64_t scale, int64_t offset, uint64_t size) {
  // t0 the first address, t2 the span in bytes, t1 its distance from the base: inside where
  // span <= size and distance <= size - span (unsigned: below the base fails).
  return untagPointer(r.t(0), base) +
         fmt::format(
             "mul.lo.s64 {t1}, {t6}, {scale};\n"
             "add.s64 {t0}, {t0}, {t1};\n"
             "add.s64 {t0}, {t0}, {offset};\n"
             "sub.s64 {t2}, {t7}, {t6};\n"
             "mul.lo.s64 {t2}, {t2}, {scale};\n"
             "add.s64 {t2}, {t2}, {size};\n"
             "sub.s64 {t1}, {t0}, {mbase};\n"
             "sub.s64 {t3}, {msize}, {t2};\n"
             "setp.le.u64 {q0}, {t2}, {msize};\n"
             "setp.le.and.u64 {q0}, {t1}, {t3}, {q0};\n"
             "and.b32 {u0}, {meta}, 255;\n"
             "setp.eq.and.u32 {q0}, {u0}, 0, {q0};\n"
             "and.pred {ok}, {ok}, {q0};\n",
             fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)), fmt::arg("t3", r.t(3)),
             fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)), fmt::arg("scale", scale), fmt::arg("offset", offset),
             fmt::arg("size", size), fmt::arg("mbase", m.base), fmt::arg("msize", m.size), fmt::arg("meta", m.meta),
             fmt::arg("u0", r.u(0)), fmt::arg("q0", r.q(0)), fmt::arg("ok", inRange));
}

std::string sharedBounds(const SharedBoundsRegs& to, const std::string& symbol, const std::string& size,
                         const std::string& g) {
  return fmt::format("{g}mov.u32 {b}, {sym};\n{g}mov.u32 {s}, {size};\n", fmt::arg("g", g), fmt::arg("b", to.base),
                     fmt::arg("sym", symbol), fmt::arg("s", to.size), fmt::arg("size", size));
}

std::string mapaSharedBounds(const FunctionRegs& r, const SharedBoundsRegs& to, const SharedBoundsRegs& from,
                             const std::string& rank, const std::string& guardPredicate, bool guardNegated) {
  // q3: the mapa happened and the bounds are known.
  std::string s = fmt::format("setp.ne.u32 {q3}, {fs}, 0xFFFFFFFF;\n", fmt::arg("q3", r.q(3)), fmt::arg("fs", from.size));
  if (!guardPredicate.empty()) {
    if (guardNegated)
      s += fmt::format("not.pred {q2}, {p};\nand.pred {q3}, {q3}, {q2};\n", fmt::arg("q2", r.q(2)),
                       fmt::arg("p", guardPredicate), fmt::arg("q3", r.q(3)));
    else
      s += fmt::format("and.pred {q3}, {q3}, {p};\n", fmt::arg("q3", r.q(3)), fmt::arg("p", guardPredicate));
  }
  std::string g = guardPrefix(guardPredicate, guardNegated);
  return s + fmt::format(
                 "{g}mov.u32 {ts}, {fs};\n{g}mov.u32 {tb}, {fb};\n@{q3} mapa.shared::cluster.u32 {tb}, {fb}, {rank};\n",
                 fmt::arg("g", g), fmt::arg("ts", to.size), fmt::arg("fs", from.size), fmt::arg("tb", to.base),
                 fmt::arg("fb", from.base), fmt::arg("q3", r.q(3)), fmt::arg("rank", rank));
}

std::string sharedWindowBounds(const SharedBoundsRegs& to, const std::string& dynamicShared, const std::string& clamp,
                               const std::string& g) {
  // size = end; base = end - total, or 0 where total > end (no reserved area below the first
  // variable); size = end - base.
  return fmt::format(
      "{g}mov.u32 {s}, %dynamic_smem_size;\n"
      "{g}mov.u32 {b}, {dynamic};\n"
      "{g}add.u32 {s}, {s}, {b};\n"
      "{g}mov.u32 {b}, %total_smem_size;\n"
      "{g}setp.gt.u32 {p}, {b}, {s};\n"
      "{g}sub.u32 {b}, {s}, {b};\n"
      "{g}selp.b32 {b}, 0, {b}, {p};\n"
      "{g}sub.u32 {s}, {s}, {b};\n",
      fmt::arg("g", g), fmt::arg("b", to.base), fmt::arg("s", to.size), fmt::arg("p", clamp),
      fmt::arg("dynamic", dynamicShared));
}

std::string passedSharedBounds(const FunctionRegs& r, const SharedBoundsRegs& to, const std::string& base,
                               const std::string& size, const std::string& window) {
  return fmt::format(
      "ld.param.b64 {t0}, [{base}];\n"
      "ld.param.b64 {t1}, [{size}];\n"
      "isspacep.shared {q2}, {t0};\n"
      "cvta.to.shared.u64 {t0}, {t0};\n"
      "cvt.u32.u64 {b}, {t0};\n"
      "min.u64 {t1}, {t1}, 0xFFFFFFFF;\n"
      "cvt.u32.u64 {s}, {t1};\n"
      "{window}",
      fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)), fmt::arg("q2", r.q(2)), fmt::arg("base", base),
      fmt::arg("size", size), fmt::arg("b", to.base), fmt::arg("s", to.size), fmt::arg("window", window));
}

std::string unknownSharedBounds(const SharedBoundsRegs& to, const std::string& g) {
  return fmt::format("{g}mov.u32 {b}, 0;\n{g}mov.u32 {s}, 0xFFFFFFFF;\n", fmt::arg("g", g), fmt::arg("b", to.base),
                     fmt::arg("s", to.size));
}

std::string copySharedBounds(const SharedBoundsRegs& to, const SharedBoundsRegs& from, const std::string& g) {
  if (to.base == from.base) return {};
  return fmt::format("{g}mov.b32 {tb}, {fb};\n{g}mov.b32 {ts}, {fs};\n", fmt::arg("g", g), fmt::arg("tb", to.base),
                     fmt::arg("fb", from.base), fmt::arg("ts", to.size), fmt::arg("fs", from.size));
}

std::string selectSharedBounds(const SharedBoundsRegs& to, const SharedBoundsRegs& a, const SharedBoundsRegs& b,
                               const std::string& p, const std::string& g) {
  return fmt::format("{g}selp.b32 {tb}, {ab}, {bb}, {p};\n{g}selp.b32 {ts}, {as}, {bs}, {p};\n", fmt::arg("g", g),
                     fmt::arg("p", p), fmt::arg("tb", to.base), fmt::arg("ab", a.base), fmt::arg("bb", b.base),
                     fmt::arg("ts", to.size), fmt::arg("as", a.size), fmt::arg("bs", b.size));
}

namespace {

// The last moves of a failing check whose bounds carry no metadata word of their own (shared
// and local memory: `meta` says which), then the branch to the report block.
std::string toReportBlock(const FunctionRegs& r, uint32_t meta, const CheckSite& c) {
  std::string setMeta =
      c.metaParam.empty()
          ? fmt::format("mov.u32 {}, {};\n", r.u(1), meta)
          : fmt::format("ld.param.b64 {t1}, [{base}];\nisspacep.shared {q1}, {t1};\nld.param.b32 {u1}, [{word}];\n"
                        "@!{q1} mov.u32 {u1}, {window};\n",
                        fmt::arg("t1", r.t(1)), fmt::arg("base", c.metaBaseParam), fmt::arg("q1", r.q(1)),
                        fmt::arg("u1", r.u(1)), fmt::arg("word", c.metaParam), fmt::arg("window", kSharedWindowMeta));
  return fmt::format("{setMeta}mov.u32 {u2}, {site};\nmov.u32 {u3}, {info};\nbra.uni {report};\n",
                     fmt::arg("setMeta", setMeta), fmt::arg("u2", r.u(2)), fmt::arg("site", c.site),
                     fmt::arg("u3", r.u(3)), fmt::arg("info", (c.size << 8) | c.accessFlags),
                     fmt::arg("report", kReportLabel));
}

// `dst` = `pointer` + `offset` in `bits`-bit arithmetic: `pointer` a register, or a variable's
// symbol (moved into `dst` first).
std::string addressPlusOffset(const std::string& dst, const std::string& pointer, int64_t offset, unsigned bits) {
  const char* add = bits == 32 ? "add.u32" : "add.s64";
  if (pointer.empty() || pointer[0] != '%')
    return fmt::format("mov.u{bits} {d}, {p};\n{add} {d}, {d}, {o};\n", fmt::arg("bits", bits), fmt::arg("d", dst),
                       fmt::arg("p", pointer), fmt::arg("add", add), fmt::arg("o", offset));
  return fmt::format("{add} {d}, {p}, {o};\n", fmt::arg("add", add), fmt::arg("d", dst), fmt::arg("p", pointer),
                     fmt::arg("o", offset));
}

// q0 = the `span` bytes at u0 + `offset` (u0 already holding the address) leave the object
// `m`: u1 their distance from its start, u2 the last valid start, compared unsigned, so an
// address below the object fails too; and an object smaller than the span fails.
std::string sharedRangeViolation(const FunctionRegs& r, const SharedBoundsRegs& m, uint64_t span) {
  return fmt::format(
      "sub.u32 {u1}, {u0}, {base};\n"
      "sub.u32 {u2}, {size}, {span};\n"
      "setp.gt.u32 {q0}, {u1}, {u2};\n"
      "setp.lt.u32 {q1}, {size}, {span};\n"
      "or.pred {q0}, {q0}, {q1};\n",
      fmt::arg("u0", r.u(0)), fmt::arg("u1", r.u(1)), fmt::arg("u2", r.u(2)), fmt::arg("q0", r.q(0)),
      fmt::arg("q1", r.q(1)), fmt::arg("base", m.base), fmt::arg("size", m.size), fmt::arg("span", span));
}

}  // namespace

CheckCode sharedCheck(const FunctionRegs& r, const SharedBoundsRegs& m, const CheckSite& c,
                      const std::string& guardPredicate, bool guardNegated) {
  // u0 the address accessed; q0 the violation.
  CheckCode code;
  std::string& s = code.inlined;
  s += addressPlusOffset(r.u(0), c.pointer, c.offset, 32);
  s += sharedRangeViolation(r, m, c.size);
  s += guardViolation(r, guardPredicate, guardNegated);
  if (c.lanes)
    s += fmt::format("mov.u32 {u1}, %laneid;\nsetp.lt.u32 {q1}, {u1}, {lanes};\nand.pred {q0}, {q0}, {q1};\n",
                     fmt::arg("u1", r.u(1)), fmt::arg("q1", r.q(1)), fmt::arg("q0", r.q(0)), fmt::arg("lanes", c.lanes));
  s += violationBranch(r, c.label);
  code.outOfLine = fmt::format(
      "{label}:\n"
      "cvt.u64.u32 {t0}, {u0};\n"
      "mov.u64 {t3}, 0;\n"
      "cvt.u64.u32 {t6}, {base};\n"
      "{size64}"
      "{toReport}",
      fmt::arg("label", c.label), fmt::arg("t0", r.t(0)), fmt::arg("u0", r.u(0)), fmt::arg("t3", r.t(3)),
      fmt::arg("t6", r.t(6)), fmt::arg("base", m.base),
      fmt::arg("size64", c.partStart.empty() ? fmt::format("cvt.u64.u32 {}, {};\n", r.t(7), m.size)
                                             : fmt::format("mov.b64 {}, {{{}, {}}};\n", r.t(7), m.size, c.partStart)),
      fmt::arg("toReport", toReportBlock(r, c.sharedWindow ? kSharedWindowMeta : kLiveMeta, c)));
  return code;
}

std::string launchConditionTest(const FunctionRegs& r, const analysis::LaunchCondition& condition) {
  // The values each term's coefficients go with, in order.
  static constexpr const char* kValues[analysis::kLaunchValues] = {"%ntid.x", "%ntid.y", "%ntid.z",
                                                                   "%dynamic_smem_size"};
  std::string s;
  bool first = true;
  for (const analysis::LaunchAffine& term : condition) {
    s += fmt::format("mov.b64 {}, {};\n", r.t(0), term.constant);
    for (size_t v = 0; v < analysis::kLaunchValues; ++v) {
      if (term.k[v] == 0) continue;
      s += fmt::format("mov.u32 {u0}, {value};\ncvt.u64.u32 {t1}, {u0};\nmad.lo.s64 {t0}, {t1}, {k}, {t0};\n",
                       fmt::arg("u0", r.u(0)), fmt::arg("value", kValues[v]), fmt::arg("t1", r.t(1)),
                       fmt::arg("t0", r.t(0)), fmt::arg("k", term.k[v]));
    }
    if (first)
      s += fmt::format("setp.ge.s64 {}, {}, 0;\n", r.q(0), r.t(0));
    else
      s += fmt::format("setp.ge.s64 {q1}, {t0}, 0;\nand.pred {q0}, {q0}, {q1};\n", fmt::arg("q1", r.q(1)),
                       fmt::arg("t0", r.t(0)), fmt::arg("q0", r.q(0)));
    first = false;
  }
  return s;
}

CheckCode sharedRangeCheck(const FunctionRegs& r, const SharedBoundsRegs& m, const std::string& address,
                           int64_t lowest, uint64_t span, const std::string& guardPredicate, bool guardNegated,
                           const CheckCode& group, const std::string& slowLabel, const std::string& okLabel) {
  std::string s = fmt::format("add.u32 {u0}, {a}, {lowest};\n", fmt::arg("u0", r.u(0)), fmt::arg("a", address),
                              fmt::arg("lowest", lowest));
  s += sharedRangeViolation(r, m, span);
  s += guardViolation(r, guardPredicate, guardNegated);
  return rangeCheckCode(r, std::move(s), group, slowLabel, okLabel);
}

CheckCode localCheck(const FunctionRegs& r, const std::string& symbol, uint64_t start, uint64_t size,
                     const CheckSite& c, const std::string& guardPredicate, bool guardNegated) {
  // t0 the address accessed, t6 the variable's, t1 the distance; q0 the violation (unsigned:
  // below the variable fails too; a span larger than the variable always fails).
  CheckCode code;
  std::string& s = code.inlined;
  s += addressPlusOffset(r.t(0), c.pointer, c.offset, 64);
  s += fmt::format("mov.u64 {t6}, {symbol};\n", fmt::arg("t6", r.t(6)), fmt::arg("symbol", symbol));
  if (start) s += fmt::format("add.s64 {t6}, {t6}, {start};\n", fmt::arg("t6", r.t(6)), fmt::arg("start", start));
  s += fmt::format("sub.s64 {t1}, {t0}, {t6};\n", fmt::arg("t1", r.t(1)), fmt::arg("t0", r.t(0)), fmt::arg("t6", r.t(6)));
  if (c.size > size)
    s += fmt::format("setp.ge.u64 {q0}, {t1}, 0;\n", fmt::arg("q0", r.q(0)), fmt::arg("t1", r.t(1)));
  else
    s += fmt::format("setp.gt.u64 {q0}, {t1}, {limit};\n", fmt::arg("q0", r.q(0)), fmt::arg("t1", r.t(1)),
                     fmt::arg("limit", size - c.size));
  s += guardViolation(r, guardPredicate, guardNegated);
  s += violationBranch(r, c.label);
  code.outOfLine = fmt::format(
      "{label}:\n"
      "mov.u64 {t3}, 0;\n"
      "mov.u64 {t7}, {size};\n"
      "{toReport}",
      fmt::arg("label", c.label), fmt::arg("t3", r.t(3)), fmt::arg("t7", r.t(7)), fmt::arg("size", size),
      fmt::arg("toReport", toReportBlock(r, kLiveMeta, c)));
  return code;
}

CheckCode allocaCheck(const FunctionRegs& r, const std::string& base, const std::string& size, const CheckSite& c,
                      const std::string& guardPredicate, bool guardNegated) {
  // t0 the address accessed, t1 its distance from the block, t2 the last valid start (0 where
  // the block is smaller than the access: every distance fails); q0 the violation (unsigned:
  // below the block fails too).
  CheckCode code;
  code.inlined = addressPlusOffset(r.t(0), c.pointer, c.offset, 64) + rangeViolation(r, base, size, c.size, "") +
                 guardViolation(r, guardPredicate, guardNegated) + violationBranch(r, c.label);
  code.outOfLine = fmt::format(
      "{label}:\n"
      "mov.u64 {t3}, 0;\n"
      "mov.b64 {t6}, {base};\n"
      "mov.b64 {t7}, {size};\n"
      "{toReport}",
      fmt::arg("label", c.label), fmt::arg("t3", r.t(3)), fmt::arg("t6", r.t(6)), fmt::arg("base", base),
      fmt::arg("t7", r.t(7)), fmt::arg("size", size), fmt::arg("toReport", toReportBlock(r, kLiveMeta, c)));
  return code;
}

std::string reportBlock(const FunctionRegs& r, uint32_t unit) {
  // Reached by a branch from every failing check of the function, with t0 the address
  // accessed, t3 the pointer, t6/t7 the bounds checked, u1 the metadata word, u2 the site and
  // u3 the info word. One block per function rather than a sequence per site: measured with
  // ptxas 13.0 for sm_90, a sequence per site made a CUB radix sort compile 15 times slower
  // than the original (9.3 s against 0.6 s; 1.7 s with the block) and used more registers (a
  // conjugate-gradient kernel: 96 against 72). Not a call either: the calling convention cost
  // 26 registers in that kernel. It never returns (trap, or in continue mode the thread ends),
  // so the values of all check sites do not meet here.
  return fmt::format(
      "{report}:\n"
      // The pointer's tag goes into the top byte of the reported metadata word.
      "shr.u64 {t3}, {t3}, {tagShift};\n"
      "cvt.u32.u64 {u4}, {t3};\n"
      "shl.b32 {u4}, {u4}, {metaTagShift};\n"
      "or.b32 {u1}, {u1}, {u4};\n"
      "ld.const.u64 {t4}, [{state}+{bufOff}];\n"
      "setp.ne.u64 {q1}, {t4}, 0;\n"
      "@{q1} atom.global.add.u32 {u4}, [{t4}], 1;\n"
      "@{q1} ld.global.u32 {u5}, [{t4}+4];\n"
      "@{q1} setp.lt.u32 {q1}, {u4}, {u5};\n"
      "@{q1} mul.wide.u32 {t5}, {u4}, {recBytes};\n"
      "@{q1} add.s64 {t5}, {t5}, {t4};\n"
      "@{q1} st.global.v2.u32 [{t5}+{o0}], {{{u2}, {u3}}};\n"
      "@{q1} st.global.u64 [{t5}+{o8}], {t0};\n"
      "@{q1} st.global.u64 [{t5}+{o16}], {t6};\n"
      "@{q1} st.global.u64 [{t5}+{o24}], {t7};\n"
      "mov.u32 {u2}, {unit};\n"
      "mov.u32 {u3}, %ctaid.x;\n"
      "mov.u32 {u4}, %ctaid.y;\n"
      "@{q1} st.global.v4.u32 [{t5}+{o32}], {{{u1}, {u2}, {u3}, {u4}}};\n"
      "mov.u32 {u2}, %ctaid.z;\n"
      "mov.u32 {u3}, %tid.x;\n"
      "mov.u32 {u4}, %tid.y;\n"
      "mov.u32 {u5}, %tid.z;\n"
      "@{q1} st.global.v4.u32 [{t5}+{o48}], {{{u2}, {u3}, {u4}, {u5}}};\n"
      // The record must reach the host before a trap ends the context.
      "membar.sys;\n"
      "ld.const.u32 {u2}, [{state}+{flagsOff}];\n"
      "and.b32 {u2}, {u2}, {continueFlag};\n"
      "setp.eq.u32 {q1}, {u2}, 0;\n"
      "@{q1} trap;\n"
      // Continue mode: this thread stops here (its faulting access is not made); the others go
      // on, and barriers waiting on it are released (PTX exit).
      "exit;\n",
      fmt::arg("report", kReportLabel), fmt::arg("t0", r.t(0)), fmt::arg("t3", r.t(3)), fmt::arg("t4", r.t(4)),
      fmt::arg("t5", r.t(5)), fmt::arg("t6", r.t(6)), fmt::arg("t7", r.t(7)), fmt::arg("u1", r.u(1)),
      fmt::arg("u2", r.u(2)), fmt::arg("u3", r.u(3)), fmt::arg("u4", r.u(4)), fmt::arg("u5", r.u(5)),
      fmt::arg("q1", r.q(1)), fmt::arg("tagShift", abi::kTagShift), fmt::arg("metaTagShift", abi::kMetaPointerTagShift),
      fmt::arg("state", CUCATCH_STATE_SYMBOL), fmt::arg("bufOff", abi::kStateErrorBufferOffset),
      fmt::arg("flagsOff", abi::kStateFlagsOffset), fmt::arg("continueFlag", abi::kFlagContinue),
      fmt::arg("recBytes", abi::kErrorRecordBytes),
      // A b32 immediate must fit in 32 signed bits.
      fmt::arg("unit", static_cast<int32_t>(unit)), fmt::arg("o0", abi::kErrorHeaderBytes + abi::kRecordSiteOffset),
      fmt::arg("o8", abi::kErrorHeaderBytes + abi::kRecordAddressOffset),
      fmt::arg("o16", abi::kErrorHeaderBytes + abi::kRecordBaseOffset),
      fmt::arg("o24", abi::kErrorHeaderBytes + abi::kRecordSizeOffset),
      fmt::arg("o32", abi::kErrorHeaderBytes + abi::kRecordMetaOffset),
      fmt::arg("o48", abi::kErrorHeaderBytes + abi::kRecordBlockZOffset));
}

std::string untagIfOurs(const FunctionRegs& r, const MetadataRegs& m, const std::string& dst, const std::string& src,
                        const std::string& pred, const std::string& directLabel, DeviceHeapEntries heapEntries) {
  // After READMETADATA: t1 the untagged address; t0 the pointer's tag (both set by it).
  // ours = tag != 0 && entry tag == tag && untagged - base <= size.
  return readMetadata(r, m, src, "", directLabel, heapEntries) +
         fmt::format(
             "sub.s64 {t2}, {t1}, {base};\n"
             "setp.le.u64 {p}, {t2}, {size};\n"
             "setp.ne.u64 {q0}, {t0}, 0;\n"
             "and.pred {p}, {p}, {q0};\n"
             "shr.u32 {u0}, {meta}, {tagShift};\n"
             "and.b32 {u0}, {u0}, 255;\n"
             "cvt.u32.u64 {u1}, {t0};\n"
             "setp.eq.u32 {q0}, {u0}, {u1};\n"
             "and.pred {p}, {p}, {q0};\n"
             "selp.b64 {dst}, {t1}, {src}, {p};\n",
             fmt::arg("t0", r.t(0)), fmt::arg("t1", r.t(1)), fmt::arg("t2", r.t(2)), fmt::arg("u0", r.u(0)),
             fmt::arg("u1", r.u(1)), fmt::arg("q0", r.q(0)), fmt::arg("p", pred), fmt::arg("base", m.base),
             fmt::arg("size", m.size), fmt::arg("meta", m.meta), fmt::arg("tagShift", abi::kMetaTagShift),
             fmt::arg("dst", dst), fmt::arg("src", src));
}

namespace {
// The device runtime's cudaMalloc and cudaFree (dynamic parallelism, -rdc -lcudadevrt): in a
// kernel they are the device heap's malloc and free (CUDA's programming guide), so a block of
// one may be freed by the other. Each returns a cudaError_t; cudaMalloc writes the block
// through its first argument.
constexpr const char* kDeviceCudaMalloc = "__cudaCDP2Malloc";
constexpr const char* kDeviceCudaFree = "__cudaCDP2Free";
}  // namespace

bool isDeviceHeapFunction(const std::string& callee) {
  return callee == "malloc" || callee == "__cuda_syscall_aligned_malloc" || callee == "free" ||
         callee == kDeviceCudaMalloc || callee == kDeviceCudaFree;
}

bool isDeviceHeapFree(const std::string& callee) { return callee == "free" || callee == kDeviceCudaFree; }

std::string heapWrapperName(const std::string& callee, uint32_t unit) {
  const char* what = callee == "free"               ? "free"
                     : callee == "malloc"           ? "malloc"
                     : callee == kDeviceCudaMalloc  ? "cuda_malloc"
                     : callee == kDeviceCudaFree    ? "cuda_free"
                                                    : "aligned_malloc";
  return fmt::format("__cucatch_{}_{:08x}", what, unit);
}

namespace {

// The HeapEvent at `log` + `offset`: this unit, the site in w0, this thread, the block (untagged)
// at `block` of `size` bytes.
std::string heapEvent(const std::string& log, unsigned offset, uint32_t unit, const std::string& block,
                      const std::string& size) {
  return fmt::format(
      "mov.u32 %__cc_w5, {unit};\n"
      "st.global.v2.u32 [{log}+{o0}], {{%__cc_w5, %__cc_w0}};\n"
      "mov.u32 %__cc_w5, %ctaid.x;\n"
      "mov.u32 %__cc_w6, %ctaid.y;\n"
      "st.global.v2.u32 [{log}+{o8}], {{%__cc_w5, %__cc_w6}};\n"
      "mov.u32 %__cc_w5, %ctaid.z;\n"
      "mov.u32 %__cc_w6, %tid.x;\n"
      "mov.u32 %__cc_w7, %tid.y;\n"
      "mov.u32 %__cc_w8, %tid.z;\n"
      "st.global.v4.u32 [{log}+{o16}], {{%__cc_w5, %__cc_w6, %__cc_w7, %__cc_w8}};\n"
      "st.global.v2.u64 [{log}+{o32}], {{{block}, {size}}};\n",
      fmt::arg("unit", static_cast<int32_t>(unit)), fmt::arg("log", log), fmt::arg("o0", offset),
      fmt::arg("o8", offset + 8), fmt::arg("o16", offset + 16), fmt::arg("o32", offset + 32),
      fmt::arg("block", block), fmt::arg("size", size));
}

// The prototype of free's wrapper, or (`callee` the device runtime's cudaFree) of one that
// returns the cudaError_t of the real call.
std::string freeWrapperPrototype(const std::string& name, const std::string& callee) {
  return fmt::format(".func {}{}(.param .b64 __cc_a0, .param .b32 __cc_site)", callee == "free" ? "" : "(.param .b32 __cc_ret) ",
                     name);
}

// free's wrapper (deviceHeapWrappers), or the device runtime cudaFree's (`callee`). h0 the
// pointer, h1 untagged, w0 the site, w1 its tag.
std::string freeWrapper(const std::string& name, const std::string& callee, uint32_t unit) {
  FunctionRegs r;
  const bool returnsError = callee != "free";
  std::string freeCall =
      returnsError ? fmt::format(".param .b32 __cc_r;\ncall.uni (__cc_r), {0}, (__cc_p0);\nld.param.b32 %__cc_w2, [__cc_r];\n"
                                 "st.param.b32 [__cc_ret], %__cc_w2;\n",
                                 callee)
                   : fmt::format("call.uni {}, (__cc_p0);\n", callee);
  return fmt::format(
      "{prototype}\n"
      "{{\n"
      "{prologue}"
      ".reg .b64 %__cc_h<4>;\n"
      ".reg .b32 %__cc_w<9>;\n"
      ".reg .pred %__cc_c<2>;\n"
      "ld.param.b64 %__cc_h0, [__cc_a0];\n"
      "ld.param.b32 %__cc_w0, [__cc_site];\n"
      "{untag}"
      "shr.u64 %__cc_h2, %__cc_h0, {tagShift};\n"
      "cvt.u32.u64 %__cc_w1, %__cc_h2;\n"
      // Untagged (a block handed out untagged, null), or no runtime: freed as it is.
      "setp.eq.u32 %__cc_c0, %__cc_w1, 0;\n"
      "not.pred %__cc_c1, {on};\n"
      "or.pred %__cc_c0, %__cc_c0, %__cc_c1;\n"
      "@%__cc_c0 bra $__cc_free;\n"
      "and.b32 %__cc_w2, %__cc_w1, 1;\n"
      "setp.eq.u32 %__cc_c0, %__cc_w2, 0;\n"
      "setp.lt.or.u32 %__cc_c0, %__cc_w1, {first}, %__cc_c0;\n"
      "@%__cc_c0 bra $__cc_other;\n"
      // A device-heap tag: its entry must be live and start where the pointer points.
      "mul.wide.u32 %__cc_h3, %__cc_w1, {entryBytes};\n"
      "add.s64 %__cc_h3, %__cc_h3, {bst};\n"
      "ld.volatile.global.u64 {t6}, [%__cc_h3];\n"
      "ld.volatile.global.u64 {t7}, [%__cc_h3+8];\n"
      "ld.volatile.global.u32 %__cc_w5, [%__cc_h3+{metaOff}];\n"
      "setp.ne.u64 %__cc_c0, {t6}, %__cc_h1;\n"
      "@%__cc_c0 bra $__cc_refuse;\n"
      "or.b32 %__cc_w3, %__cc_w1, {liveWord};\n"
      "or.b32 %__cc_w4, %__cc_w1, {freedWord};\n"
      "atom.global.cas.b32 %__cc_w5, [%__cc_h3+{metaOff}], %__cc_w3, %__cc_w4;\n"
      "setp.ne.u32 %__cc_c0, %__cc_w5, %__cc_w3;\n"
      "@%__cc_c0 bra $__cc_refuse;\n"
      "ld.const.u64 %__cc_h2, [{state}+{logOff}];\n"
      "setp.eq.u64 %__cc_c0, %__cc_h2, 0;\n"
      "@%__cc_c0 bra $__cc_free;\n"
      "sub.u32 %__cc_w2, %__cc_w1, {first};\n"
      "shr.u32 %__cc_w2, %__cc_w2, 1;\n"
      "mul.wide.u32 %__cc_h3, %__cc_w2, {pairBytes};\n"
      "add.s64 %__cc_h2, %__cc_h2, %__cc_h3;\n"
      "{event}"
      "$__cc_free:\n"
      "{{\n"
      ".param .b64 __cc_p0;\n"
      "st.param.b64 [__cc_p0], %__cc_h1;\n"
      "{freeCall}"
      "}}\n"
      "ret;\n"
      // Refused: the entry's word (w5) and bounds (t6/t7) go into the record.
      "$__cc_refuse:\n"
      "and.b32 {u1}, %__cc_w5, 65535;\n"
      "shl.b32 {u1}, {u1}, {metaTagShift};\n"
      "bra.uni $__cc_report_free;\n"
      // A tag the runtime gave (device memory from the host side): what the tables say of it.
      "$__cc_other:\n"
      "{readMetadata}"
      "$__cc_report_free:\n"
      "mov.b64 {t0}, %__cc_h1;\n"
      "mov.b64 {t3}, %__cc_h0;\n"
      "mov.u32 {u2}, %__cc_w0;\n"
      "mov.u32 {u3}, {freeInfo};\n"
      "bra.uni $__cc_report;\n"
      "{report}"
      "}}\n",
      fmt::arg("prototype", freeWrapperPrototype(name, callee)), fmt::arg("freeCall", freeCall),
      fmt::arg("prologue", functionPrologue(r)), fmt::arg("on", r.enabled),
      fmt::arg("bst", r.bst), fmt::arg("t0", r.t(0)), fmt::arg("t3", r.t(3)), fmt::arg("t6", r.t(6)),
      fmt::arg("t7", r.t(7)), fmt::arg("u1", r.u(1)), fmt::arg("u2", r.u(2)), fmt::arg("u3", r.u(3)),
      fmt::arg("untag", untagPointer("%__cc_h1", "%__cc_h0")), fmt::arg("tagShift", abi::kTagShift),
      fmt::arg("first", abi::kFirstHeapTag), fmt::arg("entryBytes", abi::kBstEntryBytes),
      fmt::arg("metaOff", abi::kBstMetaOffset), fmt::arg("liveWord", abi::kBstLive << 8),
      fmt::arg("freedWord", abi::kBstFreed << 8), fmt::arg("state", CUCATCH_STATE_SYMBOL),
      fmt::arg("logOff", abi::kStateHeapLogOffset), fmt::arg("pairBytes", 2 * abi::kHeapEventBytes),
      fmt::arg("event", heapEvent("%__cc_h2", abi::kHeapEventBytes, unit, "%__cc_h1", r.t(7))), fmt::arg("metaTagShift", abi::kMetaTagShift),
      fmt::arg("readMetadata", readMetadata(r, {r.t(6), r.t(7), r.u(1)}, "%__cc_h0", "", "$__cc_direct",
                                                DeviceHeapEntries::FromL2)),
      fmt::arg("freeInfo", abi::kAccessFree), fmt::arg("report", reportBlock(r, unit)));
}

// h0 the size, h1 the block (null: none), w0 the site: where kFlagHeapTags is set, an odd BST
// entry is claimed round robin (free or freed, not live or being written by another thread),
// written with the block's bounds and logged, and h1 tagged with its index. Where the
// kHeapClaimTries entries it looked at were all live, h1 stays untagged. Ends at $__cc_done.
std::string claimHeapEntry(uint32_t unit) {
  return fmt::format(
      "setp.eq.u64 %__cc_c0, %__cc_h1, 0;\n"
      "@%__cc_c0 bra $__cc_done;\n"
      "ld.const.u32 %__cc_w1, [{state}+{flagsOff}];\n"
      "and.b32 %__cc_w1, %__cc_w1, {heapTags};\n"
      "setp.eq.u32 %__cc_c0, %__cc_w1, 0;\n"
      "@%__cc_c0 bra $__cc_done;\n"
      "ld.const.u64 %__cc_h2, [{state}+{bstOff}];\n"
      "setp.eq.u64 %__cc_c0, %__cc_h2, 0;\n"
      "@%__cc_c0 bra $__cc_done;\n"
      "mov.u32 %__cc_w2, 0;\n"
      "$__cc_next:\n"
      "atom.global.add.u64 %__cc_h3, [%__cc_h2+{cursor}], 1;\n"
      "rem.u64 %__cc_h3, %__cc_h3, {count};\n"
      "cvt.u32.u64 %__cc_w3, %__cc_h3;\n"
      "shl.b32 %__cc_w4, %__cc_w3, 1;\n"
      "add.u32 %__cc_w4, %__cc_w4, {first};\n"
      "mul.wide.u32 %__cc_h4, %__cc_w4, {entryBytes};\n"
      "add.s64 %__cc_h4, %__cc_h4, %__cc_h2;\n"
      "ld.volatile.global.u32 %__cc_w5, [%__cc_h4+{metaOff}];\n"
      "bfe.u32 %__cc_w6, %__cc_w5, 8, 8;\n"
      "setp.eq.u32 %__cc_c0, %__cc_w6, {live};\n"
      "setp.eq.or.u32 %__cc_c0, %__cc_w6, {claimed}, %__cc_c0;\n"
      "@%__cc_c0 bra $__cc_busy;\n"
      "or.b32 %__cc_w7, %__cc_w4, {claimedWord};\n"
      "atom.global.cas.b32 %__cc_w8, [%__cc_h4+{metaOff}], %__cc_w5, %__cc_w7;\n"
      "setp.ne.u32 %__cc_c0, %__cc_w8, %__cc_w5;\n"
      "@%__cc_c0 bra $__cc_busy;\n"
      // Bounds first, then (after the fence) the word that makes the entry live.
      "st.global.v2.u64 [%__cc_h4], {{%__cc_h1, %__cc_h0}};\n"
      "membar.gl;\n"
      "or.b32 %__cc_w7, %__cc_w4, {liveWord};\n"
      "st.volatile.global.u32 [%__cc_h4+{metaOff}], %__cc_w7;\n"
      "ld.const.u64 %__cc_h5, [{state}+{logOff}];\n"
      "setp.eq.u64 %__cc_c0, %__cc_h5, 0;\n"
      "@%__cc_c0 bra $__cc_tag;\n"
      "mul.wide.u32 %__cc_h6, %__cc_w3, {pairBytes};\n"
      "add.s64 %__cc_h5, %__cc_h5, %__cc_h6;\n"
      "{event}"
      // The block's free event is of the block that had the entry before.
      "mov.u32 %__cc_w5, 0;\n"
      "st.global.v4.u32 [%__cc_h5+{eventBytes}], {{%__cc_w5, %__cc_w5, %__cc_w5, %__cc_w5}};\n"
      "st.global.v4.u32 [%__cc_h5+{eventBytes16}], {{%__cc_w5, %__cc_w5, %__cc_w5, %__cc_w5}};\n"
      "st.global.v4.u32 [%__cc_h5+{eventBytes32}], {{%__cc_w5, %__cc_w5, %__cc_w5, %__cc_w5}};\n"
      "$__cc_tag:\n"
      "cvt.u64.u32 %__cc_h7, %__cc_w4;\n"
      "shl.b64 %__cc_h7, %__cc_h7, {tagShift};\n"
      "or.b64 %__cc_h1, %__cc_h1, %__cc_h7;\n"
      "bra.uni $__cc_done;\n"
      "$__cc_busy:\n"
      "add.u32 %__cc_w2, %__cc_w2, 1;\n"
      "setp.lt.u32 %__cc_c0, %__cc_w2, {tries};\n"
      "@%__cc_c0 bra $__cc_next;\n"
      "$__cc_done:\n",
      fmt::arg("state", CUCATCH_STATE_SYMBOL), fmt::arg("flagsOff", abi::kStateFlagsOffset),
      fmt::arg("heapTags", abi::kFlagHeapTags), fmt::arg("bstOff", abi::kStateBstOffset),
      fmt::arg("cursor", abi::kHeapCursorIndex * abi::kBstEntryBytes), fmt::arg("count", abi::kHeapTags),
      fmt::arg("first", abi::kFirstHeapTag), fmt::arg("entryBytes", abi::kBstEntryBytes),
      fmt::arg("tries", abi::kHeapClaimTries), fmt::arg("metaOff", abi::kBstMetaOffset), fmt::arg("live", abi::kBstLive),
      fmt::arg("claimed", abi::kBstClaimed),
      fmt::arg("claimedWord", abi::kBstClaimed << 8), fmt::arg("liveWord", abi::kBstLive << 8),
      fmt::arg("logOff", abi::kStateHeapLogOffset), fmt::arg("pairBytes", 2 * abi::kHeapEventBytes),
      fmt::arg("eventBytes", abi::kHeapEventBytes), fmt::arg("eventBytes16", abi::kHeapEventBytes + 16),
      fmt::arg("eventBytes32", abi::kHeapEventBytes + 32),
      fmt::arg("tagShift", abi::kTagShift), fmt::arg("event", heapEvent("%__cc_h5", 0, unit, "%__cc_h1", "%__cc_h0")));
}

}  // namespace

HeapWrappers deviceHeapWrappers(const std::set<std::string>& wrapped, uint32_t unit) {
  HeapWrappers w;
  for (const std::string& callee : wrapped) {
    const std::string name = heapWrapperName(callee, unit);
    if (isDeviceHeapFree(callee)) {
      w.prototypes += freeWrapperPrototype(name, callee) + ";\n";
      w.definitions += freeWrapper(name, callee, unit);
      continue;
    }
    if (callee == kDeviceCudaMalloc) {
      // The device runtime's cudaMalloc(void** devPtr, size_t size): the real call with the
      // pointer untagged (it may point into a tagged allocation: a struct's field), then, where
      // it succeeded, the block it wrote there is given an entry and tag as malloc's are, and
      // written back tagged.
      w.prototypes += fmt::format(
          ".func (.param .b32 __cc_ret) {}(.param .b64 __cc_a0, .param .b64 __cc_a1, .param .b32 __cc_site);\n", name);
      w.definitions += fmt::format(
          ".func (.param .b32 __cc_ret) {name}(.param .b64 __cc_a0, .param .b64 __cc_a1, .param .b32 __cc_site)\n"
          "{{\n"
          ".reg .b64 %__cc_h<10>;\n"
          ".reg .b32 %__cc_w<10>;\n"
          ".reg .pred %__cc_c<2>;\n"
          "ld.param.b64 %__cc_h8, [__cc_a0];\n"
          "{untag}"
          "ld.param.b64 %__cc_h0, [__cc_a1];\n"
          "ld.param.b32 %__cc_w0, [__cc_site];\n"
          "{{\n"
          ".param .b64 __cc_p0;\n"
          "st.param.b64 [__cc_p0], %__cc_h8;\n"
          ".param .b64 __cc_p1;\n"
          "st.param.b64 [__cc_p1], %__cc_h0;\n"
          ".param .b32 __cc_r;\n"
          "call.uni (__cc_r), {callee}, (__cc_p0, __cc_p1);\n"
          "ld.param.b32 %__cc_w9, [__cc_r];\n"
          "}}\n"
          "st.param.b32 [__cc_ret], %__cc_w9;\n"
          "setp.ne.u32 %__cc_c1, %__cc_w9, 0;\n"
          "@%__cc_c1 ret;\n"
          "ld.u64 %__cc_h1, [%__cc_h8];\n"
          "{claim}"
          "st.u64 [%__cc_h8], %__cc_h1;\n"
          "ret;\n"
          "}}\n",
          fmt::arg("name", name), fmt::arg("callee", callee), fmt::arg("untag", untagPointer("%__cc_h8", "%__cc_h8")),
          fmt::arg("claim", claimHeapEntry(unit)));
      continue;
    }
    const bool aligned = callee != "malloc";
    std::string params = aligned ? "(.param .b64 __cc_a0, .param .b64 __cc_a1, .param .b32 __cc_site)"
                                 : "(.param .b64 __cc_a0, .param .b32 __cc_site)";
    w.prototypes += fmt::format(".func (.param .b64 __cc_ret) {}{};\n", name, params);
    w.definitions += fmt::format(
        ".func (.param .b64 __cc_ret) {name}{params}\n"
        "{{\n"
        ".reg .b64 %__cc_h<10>;\n"
        ".reg .b32 %__cc_w<10>;\n"
        ".reg .pred %__cc_c<2>;\n"
        "ld.param.b64 %__cc_h0, [__cc_a0];\n"
        "{loadAlign}"
        "ld.param.b32 %__cc_w0, [__cc_site];\n"
        "{{\n"
        ".param .b64 __cc_p0;\n"
        "st.param.b64 [__cc_p0], %__cc_h0;\n"
        "{passAlign}"
        ".param .b64 __cc_r;\n"
        "call.uni (__cc_r), {callee}, (__cc_p0{alignArg});\n"
        "ld.param.b64 %__cc_h1, [__cc_r];\n"
        "}}\n"
        "{claim}"
        "st.param.b64 [__cc_ret], %__cc_h1;\n"
        "ret;\n"
        "}}\n",
        fmt::arg("name", name), fmt::arg("params", params), fmt::arg("callee", callee),
        fmt::arg("loadAlign", aligned ? "ld.param.b64 %__cc_h9, [__cc_a1];\n" : ""),
        fmt::arg("passAlign", aligned ? ".param .b64 __cc_p1;\nst.param.b64 [__cc_p1], %__cc_h9;\n" : ""),
        fmt::arg("alignArg", aligned ? ", __cc_p1" : ""), fmt::arg("claim", claimHeapEntry(unit)));
  }
  return w;
}

std::string unitKernelName(uint32_t unit) {
  return fmt::format("{}{:08x}{}{}", CUCATCH_UNIT_PREFIX, unit, CUCATCH_UNIT_VERSION_INFIX, abi::kAbiVersion);
}

std::string moduleDeclarations() {
  return fmt::format(
      ".weak .const .align 8 .b8 {state}[{bytes}];\n"
      ".weak .global .align 4 .u32 {marker} = {version};\n",
      fmt::arg("state", CUCATCH_STATE_SYMBOL), fmt::arg("bytes", abi::kStateBytes),
      fmt::arg("marker", CUCATCH_MARKER_SYMBOL), fmt::arg("version", abi::kAbiVersion));
}

std::string frameTablePrologue(const FrameTableRegs& t, const std::string& variable, const std::string& parameter) {
  std::string text = fmt::format(".reg .b64 {table}, {tag}, %__cc_fte, %__cc_fta, %__cc_fto;\n"
                                 ".reg .b32 {depth}, {serial}, %__cc_ftn, %__cc_ftw, %__cc_ftc;\n"
                                 ".reg .pred {has}, %__cc_ftq, %__cc_ftr;\n",
                                 fmt::arg("table", t.table), fmt::arg("tag", t.tag), fmt::arg("depth", t.depthAtEntry),
                                 fmt::arg("serial", t.serial), fmt::arg("has", t.has));
  if (!variable.empty())
    return text + fmt::format("mov.u64 {table}, {variable};\nsetp.ne.u64 {has}, {table}, 0;\n"
                              "st.local.u64 [{table}], 0;\nst.local.u64 [{table}+8], 0;\n",
                              fmt::arg("table", t.table), fmt::arg("variable", variable), fmt::arg("has", t.has));
  return text + fmt::format("ld.param.u64 {table}, [{parameter}];\nsetp.ne.u64 {has}, {table}, 0;\n",
                            fmt::arg("table", t.table), fmt::arg("parameter", parameter), fmt::arg("has", t.has));
}

std::string frameTableSaveDepth(const FrameTableRegs& t) {
  return fmt::format("mov.u32 {depth}, 0;\n@{has} ld.local.u32 {depth}, [{table}];\n", fmt::arg("depth", t.depthAtEntry),
                     fmt::arg("has", t.has), fmt::arg("table", t.table));
}

std::string frameTableNewSerial(const FrameTableRegs& t, bool tag) {
  // 1..255, round: 0 would mean "no serial".
  std::string text = fmt::format(
      "mov.u32 {serial}, 0;\n"
      "@{has} ld.local.u32 {serial}, [{table}+8];\n"
      "add.u32 {serial}, {serial}, 1;\n"
      "and.b32 {serial}, {serial}, 255;\n"
      "max.u32 {serial}, {serial}, 1;\n"
      "@{has} st.local.u32 [{table}+8], {serial};\n"
      "@!{has} mov.u32 {serial}, 0;\n",
      fmt::arg("serial", t.serial), fmt::arg("has", t.has), fmt::arg("table", t.table));
  if (tag)
    text += fmt::format("cvt.u64.u32 {tag}, {serial};\nshl.b64 {tag}, {tag}, {shift};\n", fmt::arg("tag", t.tag),
                        fmt::arg("serial", t.serial), fmt::arg("shift", abi::kFrameTagShift));
  return text;
}

std::string frameTagged(const FrameTableRegs& t, const std::string& reg, const std::string& g) {
  return fmt::format("{}or.b64 {}, {}, {};\n", g, reg, reg, t.tag);
}

std::string stripFrameTag(const std::string& dst, const std::string& src, const std::string& scratch,
                          const std::string& pred) {
  return fmt::format(
      "and.b64 {scratch}, {src}, 0x{mask:016X};\n"
      "isspacep.local {pred}, {scratch};\n"
      "setp.lt.and.u64 {pred}, {src}, {globalTagged}, {pred};\n"
      "selp.b64 {dst}, {scratch}, {src}, {pred};\n",
      fmt::arg("scratch", scratch), fmt::arg("src", src), fmt::arg("mask", abi::kGenericAddressMask),
      fmt::arg("pred", pred), fmt::arg("globalTagged", uint64_t{1} << abi::kTagShift), fmt::arg("dst", dst));
}

namespace {

constexpr uint64_t kEntryStartMask = (uint64_t{1} << 28) - 1;

// Pushes the entry in %__cc_fte: written where the table has room, the depth and the count of
// entries written raised either way (so that the returns past the capacity restore it). An
// entry it writes over (a frame that returned: below the count written) goes to the ring of
// those overwritten first.
std::string frameTablePush(const FrameTableRegs& t) {
  return fmt::format(
      "@{has} ld.local.v2.u32 {{%__cc_ftn, %__cc_ftw}}, [{table}];\n"
      "setp.lt.u32 %__cc_ftq, %__cc_ftn, {entries};\n"
      "and.pred %__cc_ftq, %__cc_ftq, {has};\n"
      "mul.wide.u32 %__cc_fta, %__cc_ftn, 8;\n"
      "add.s64 %__cc_fta, %__cc_fta, {table};\n"
      "setp.lt.and.u32 %__cc_ftr, %__cc_ftn, %__cc_ftw, %__cc_ftq;\n"
      "@%__cc_ftr ld.local.u64 %__cc_fto, [%__cc_fta+{header}];\n"
      "@%__cc_ftr ld.local.u32 %__cc_ftc, [{table}+12];\n"
      "@%__cc_ftr cvt.u64.u32 %__cc_fta, %__cc_ftc;\n"
      "@%__cc_ftr and.b64 %__cc_fta, %__cc_fta, {ringMask};\n"
      "@%__cc_ftr shl.b64 %__cc_fta, %__cc_fta, 3;\n"
      "@%__cc_ftr add.s64 %__cc_fta, %__cc_fta, {table};\n"
      "@%__cc_ftr st.local.u64 [%__cc_fta+{ring}], %__cc_fto;\n"
      "@%__cc_ftr add.u32 %__cc_ftc, %__cc_ftc, 1;\n"
      "@%__cc_ftr st.local.u32 [{table}+12], %__cc_ftc;\n"
      "@%__cc_ftr mul.wide.u32 %__cc_fta, %__cc_ftn, 8;\n"
      "@%__cc_ftr add.s64 %__cc_fta, %__cc_fta, {table};\n"
      "@%__cc_ftq st.local.u64 [%__cc_fta+{header}], %__cc_fte;\n"
      "add.u32 %__cc_ftn, %__cc_ftn, 1;\n"
      "max.u32 %__cc_ftw, %__cc_ftw, %__cc_ftn;\n"
      "@{has} st.local.v2.u32 [{table}], {{%__cc_ftn, %__cc_ftw}};\n",
      fmt::arg("has", t.has), fmt::arg("table", t.table), fmt::arg("entries", kFrameTableEntries),
      fmt::arg("header", kFrameTableHeaderBytes), fmt::arg("ringMask", kFrameTableOverwritten - 1),
      fmt::arg("ring", kFrameTableOverwrittenOffset));
}

}  // namespace

std::string frameTablePushVariable(const FrameTableRegs& t, const std::string& symbol, uint64_t bytes, uint8_t objectId) {
  const uint64_t high = std::min<uint64_t>(bytes, kFrameTableMaxFrameBytes) << 28 | static_cast<uint64_t>(objectId) << 48;
  return fmt::format("mov.u64 %__cc_fte, {symbol};\nand.b64 %__cc_fte, %__cc_fte, {startMask};\n"
                     "or.b64 %__cc_fte, %__cc_fte, {high};\n"
                     "cvt.u64.u32 %__cc_fta, {serial};\nshl.b64 %__cc_fta, %__cc_fta, 56;\n"
                     "or.b64 %__cc_fte, %__cc_fte, %__cc_fta;\n",
                     fmt::arg("symbol", symbol), fmt::arg("startMask", kEntryStartMask), fmt::arg("high", high),
                     fmt::arg("serial", t.serial)) +
         frameTablePush(t);
}

std::string frameTablePushBlock(const FrameTableRegs& t, const std::string& start, const std::string& sizeRegister) {
  return fmt::format("min.u64 %__cc_fta, {size}, {maxSize};\nshl.b64 %__cc_fta, %__cc_fta, 28;\n"
                     "and.b64 %__cc_fte, {start}, {startMask};\nor.b64 %__cc_fte, %__cc_fte, %__cc_fta;\n",
                     fmt::arg("size", sizeRegister), fmt::arg("maxSize", kFrameTableMaxFrameBytes), fmt::arg("start", start),
                     fmt::arg("startMask", kEntryStartMask)) +
         frameTablePush(t);
}

std::string frameTablePop(const FrameTableRegs& t, const std::string& guardPredicate, bool guardNegated,
                          std::optional<size_t> pushed) {
  // (Whether there is a table is asked again here, not kept from entry: a predicate live across
  // the function's calls costs stack in a recursive one.)
  const std::string when = "%__cc_ftq";
  std::string text = fmt::format("setp.ne.u64 {}, {}, 0;\n", when, t.table);
  if (!guardPredicate.empty())
    text += fmt::format("and.pred {0}, {0}, {1}{2};\n", when, guardNegated ? "!" : "", guardPredicate);
  if (!pushed)
    return text + fmt::format("@{} st.local.u32 [{}], {};\n", when, t.table, t.depthAtEntry);
  return text + fmt::format("@{when} ld.local.u32 %__cc_ftn, [{table}];\n@{when} sub.u32 %__cc_ftn, %__cc_ftn, {n};\n"
                            "@{when} st.local.u32 [{table}], %__cc_ftn;\n",
                            fmt::arg("when", when), fmt::arg("table", t.table), fmt::arg("n", *pushed));
}

namespace {

std::string frameArraysName(uint32_t unit) { return fmt::format("__cucatch_frame_arrays_{:08x}", unit); }

// The largest frame object with arrays: the table's index words go up to it.
uint32_t frameArrayTableObjects(const FrameArrayTable& arrays) { return arrays.empty() ? 0 : arrays.rbegin()->first; }

// The table of frameArrayNarrowing: first, one word per frame object up to the largest with
// arrays, its arrays' first word and the word past its last (in the low and high halves; equal:
// none); then the arrays, each as its start in the frame (24 bits) and its object (8).
std::string frameArrayTableDefinition(uint32_t unit, const FrameArrayTable& arrays) {
  if (arrays.empty()) return {};
  const uint32_t objects = frameArrayTableObjects(arrays) + 1;
  std::vector<uint32_t> words(objects, 0);
  for (const auto& [frame, list] : arrays) {
    const auto first = static_cast<uint32_t>(words.size());
    for (const FrameArray& a : list) words.push_back(a.start | uint32_t{a.object} << 24);
    words[frame] = first | static_cast<uint32_t>(words.size()) << 16;
  }
  return fmt::format(".global .align 4 .u32 {}[{}] = {{{}}};\n", frameArraysName(unit), words.size(),
                     fmt::join(words, ", "));
}

// At the lookup's end, where it found a frame (start %u8, size %u9, object %u11; the address
// %u4): the array of the frame the address is in, or is one past the end of (both arrays where
// it is at the start of one, which is also one past the end of the one before: the pointer may
// be either's; object 0), where the unit's table gives the frame's arrays and the address is not
// before the first. (Registers the scan used are free here. A plain global load: `.nc` would
// need sm_32, and cucatch instruments sm_20 and later.)
std::string frameArrayNarrowing(uint32_t unit, const FrameArrayTable& arrays) {
  if (arrays.empty()) return {};
  return fmt::format(
      "setp.eq.u32 %p0, %u11, 0;\n"
      "setp.gt.or.u32 %p0, %u11, {objects}, %p0;\n"
      "@%p0 bra $narrowed;\n"
      "mov.u64 %t0, {table};\n"
      "mul.wide.u32 %t2, %u11, 4;\n"
      "add.s64 %t2, %t2, %t0;\n"
      "ld.global.u32 %u0, [%t2];\n"
      "and.b32 %u3, %u0, 65535;\n"
      "shr.u32 %u1, %u0, 16;\n"
      "sub.u32 %u6, %u4, %u8;\n"
      "mov.u32 %u12, -1;\n"
      "mov.u32 %u13, -1;\n"
      "mov.u32 %u7, %u9;\n"
      "$arrays:\n"
      "setp.ge.u32 %p0, %u3, %u1;\n"
      "@%p0 bra $arrays_done;\n"
      "mul.wide.u32 %t2, %u3, 4;\n"
      "add.s64 %t2, %t2, %t0;\n"
      "ld.global.u32 %u0, [%t2];\n"
      "add.u32 %u3, %u3, 1;\n"
      "and.b32 %u2, %u0, 16777215;\n"
      "setp.gt.u32 %p0, %u2, %u6;\n"
      "@%p0 mov.u32 %u7, %u2;\n"
      "@%p0 bra $arrays_done;\n"
      "mov.u32 %u13, %u12;\n"
      "mov.u32 %u12, %u2;\n"
      "shr.u32 %u14, %u0, 24;\n"
      "bra.uni $arrays;\n"
      "$arrays_done:\n"
      "setp.eq.u32 %p0, %u12, -1;\n"
      "@%p0 bra $narrowed;\n"
      "setp.eq.u32 %p0, %u6, %u12;\n"
      "setp.ne.and.u32 %p0, %u13, -1, %p0;\n"
      "@%p0 mov.u32 %u12, %u13;\n"
      "@%p0 mov.u32 %u14, 0;\n"
      "add.u32 %u8, %u8, %u12;\n"
      "sub.u32 %u9, %u7, %u12;\n"
      "mov.u32 %u11, %u14;\n"
      "$narrowed:\n",
      fmt::arg("objects", frameArrayTableObjects(arrays)), fmt::arg("table", frameArraysName(unit)));
}

}  // namespace

std::string frameLookupName(uint32_t unit) { return fmt::format("__cucatch_frame_lookup_{:08x}", unit); }

std::string frameLookupFunction(uint32_t unit, const FrameArrayTable& arrays) {
  // Local addresses and the entries' fields fit in 32 bits (a start has 28, a size 20), so the
  // lookup works on 32-bit values, and keeps the entries it picks as indices, decoding the one it
  // reports again after its scan: every register it holds is a callee-saved one its callers'
  // stacks pay for (a recursion near the stack limit is where the table is).
  // %u2 how far the scan goes (the live entries recorded), %u3 the index; after it, where the
  // address is in no live frame, %u0 the depth and %u1 the entries written (read again: fewer
  // registers through the scan); %u4 the
  // address as a local one, %u5 the pointer's frame tag; an entry's words %u6 %u7, decoded: start
  // %u8, size %u9, serial %u10 (%p2: it is the pointer's, or either is none), object %u11; the
  // live entries (index + 1, 0: none) of the pointer's serial the address is inside (%u12) and one
  // past the end of (%u13: a pointer to the end of an array is a correct one), and of another
  // serial it is inside (%u14); through the scan, in 4 bits each of %u12 (one register, not
  // three). The result: start %u8, size %u9, object %u11, state %u15.
  const uint32_t shift = abi::kMetaStateShift;
  const uint32_t live = abi::kMetaStateFrameTable << shift;
  const uint32_t dead = live | abi::kMetaVerdictBad;
  const uint32_t reused = abi::kMetaStateFrameReused << shift | abi::kMetaVerdictBad;
  const uint32_t overwritten = abi::kMetaStateFrameOverwritten << shift | abi::kMetaVerdictBad;
  // The entry at index `index` of the array at byte `at` of the table, decoded into start, size
  // and object (none where `object` is empty) (and %u10, %p2: its serial, whether it is the
  // pointer's).
  auto entry = [](const std::string& index, unsigned at, const std::string& start, const std::string& size,
                  const std::string& object) {
    return fmt::format(
        "mul.wide.u32 %t2, {index}, 8;\n"
        "add.s64 %t2, %t2, %t0;\n"
        "ld.local.v2.u32 {{%u6, %u7}}, [%t2+{at}];\n"
        "and.b32 {start}, %u6, {startMask};\n"
        "shr.u32 {size}, %u6, 28;\n"
        "bfi.b32 {size}, %u7, {size}, 4, 16;\n"
        "{objectField}"
        "shr.u32 %u10, %u7, 24;\n"
        "setp.eq.u32 %p2, %u10, %u5;\n"
        "setp.eq.or.u32 %p2, %u10, 0, %p2;\n"
        "setp.eq.or.u32 %p2, %u5, 0, %p2;\n",
        fmt::arg("index", index), fmt::arg("at", at), fmt::arg("start", start), fmt::arg("size", size),
        fmt::arg("objectField", object.empty() ? "" : fmt::format("bfe.u32 {}, %u7, 16, 8;\n", object)),
        fmt::arg("startMask", kEntryStartMask));
  };
  // A live entry picked by the scan (index + 1 in `picked`), decoded.
  auto picked = [&](const std::string& reg, const std::string& start, const std::string& size,
                    const std::string& object) {
    return fmt::format("add.u32 %u3, {}, -1;\n", reg) + entry("%u3", kFrameTableHeaderBytes, start, size, object);
  };
  return frameArrayTableDefinition(unit, arrays) + fmt::format(
      ".func (.param .align 8 .b8 __cc_bounds[24]) {name}(.param .b64 __cc_table, .param .b64 __cc_address, "
      ".param .b32 __cc_serial)\n"
      "{{\n"
      ".reg .b64 %t<4>;\n"
      ".reg .b32 %u<20>;\n"
      ".reg .pred %p<4>;\n"
      "ld.param.u64 %t0, [__cc_table];\n"
      "ld.param.u64 %t1, [__cc_address];\n"
      "ld.param.u32 %u5, [__cc_serial];\n"
      "cvta.to.local.u64 %t1, %t1;\n"
      "cvt.u32.u64 %u4, %t1;\n"
      "ld.local.u32 %u2, [%t0];\n"
      "min.u32 %u2, %u2, {entries};\n"
      "mov.u32 %u12, 0;\n"
      "mov.u32 %u3, 0;\n"
      "$live:\n"
      "setp.ge.u32 %p0, %u3, %u2;\n"
      "@%p0 bra $live_done;\n"
      "{liveEntry}"
      "add.u32 %u3, %u3, 1;\n"
      "sub.u32 %u6, %u4, %u8;\n"
      "setp.lt.u32 %p1, %u6, %u9;\n"
      "and.pred %p3, %p1, %p2;\n"
      "@%p3 bfi.b32 %u12, %u3, %u12, 0, 4;\n"
      "not.pred %p3, %p2;\n"
      "and.pred %p3, %p1, %p3;\n"
      "@%p3 bfi.b32 %u12, %u3, %u12, 8, 4;\n"
      "setp.eq.u32 %p1, %u6, %u9;\n"
      "and.pred %p1, %p1, %p2;\n"
      "@%p1 bfi.b32 %u12, %u3, %u12, 4, 4;\n"
      "bra.uni $live;\n"
      "$live_done:\n"
      "bfe.u32 %u13, %u12, 4, 4;\n"
      "bfe.u32 %u14, %u12, 8, 4;\n"
      "and.b32 %u12, %u12, 15;\n"
      "mov.u32 %u15, {live};\n"
      "setp.eq.u32 %p1, %u12, 0;\n"
      "@%p1 bra $end_only;\n"
      "{inside}"
      // Where the address is also one past the end of the live frame below it (adjacent frames),
      // both: the pointer may be either's.
      "setp.eq.u32 %p1, %u13, 0;\n"
      "@%p1 bra $found;\n"
      "{below}"
      "add.u32 %u9, %u9, %u17;\n"
      "mov.u32 %u11, 0;\n"
      "bra.uni $found;\n"
      "$end_only:\n"
      "setp.eq.u32 %p1, %u13, 0;\n"
      "@%p1 bra $other_serial;\n"
      "{endOnly}"
      "bra.uni $found;\n"
      // Inside a live frame that a later call pushed: the pointer's frame has returned. It is
      // named where the push that wrote over its entry kept it (of the pointer's serial, the
      // address inside or one past its end); else the live frame is.
      "$other_serial:\n"
      "setp.eq.u32 %p1, %u14, 0;\n"
      "@%p1 bra $dead;\n"
      "ld.local.u32 %u2, [%t0+12];\n"
      "min.u32 %u2, %u2, {ringEntries};\n"
      "mov.u32 %u3, 0;\n"
      "mov.u32 %u15, {overwritten};\n"
      "$overwritten:\n"
      "setp.ge.u32 %p0, %u3, %u2;\n"
      "@%p0 bra $reused_live;\n"
      "{ringEntry}"
      "add.u32 %u3, %u3, 1;\n"
      "sub.u32 %u6, %u4, %u8;\n"
      "setp.le.u32 %p1, %u6, %u9;\n"
      "setp.eq.and.u32 %p1, %u10, %u5, %p1;\n"
      "@!%p1 bra $overwritten;\n"
      "bra.uni $found;\n"
      "$reused_live:\n"
      "{otherSerial}"
      "mov.u32 %u15, {reused};\n"
      "bra.uni $found;\n"
      // In no live frame recorded. Where frames past the capacity are live, it may be in one.
      "$dead:\n"
      "ld.local.v2.u32 {{%u0, %u1}}, [%t0];\n"
      "min.u32 %u1, %u1, {entries};\n"
      "setp.gt.u32 %p0, %u0, {entries};\n"
      "@%p0 bra $unknown;\n"
      // In a frame that has returned: the nearest of the pointer's serial the table still holds
      // there, the most recent return from this depth first.
      "mov.u32 %u3, %u0;\n"
      "mov.u32 %u15, {dead};\n"
      "$returned:\n"
      "setp.ge.u32 %p0, %u3, %u1;\n"
      "@%p0 bra $none;\n"
      "{returnedEntry}"
      "add.u32 %u3, %u3, 1;\n"
      "sub.u32 %u6, %u4, %u8;\n"
      "setp.le.u32 %p1, %u6, %u9;\n"
      "and.pred %p1, %p1, %p2;\n"
      "@!%p1 bra $returned;\n"
      "$found:\n"
      "{narrow}"
      "cvt.u64.u32 %t2, %u8;\n"
      "cvta.local.u64 %t2, %t2;\n"
      "cvt.u64.u32 %t3, %u9;\n"
      "shl.b32 %u11, %u11, {tagShift};\n"
      "or.b32 %u11, %u11, %u15;\n"
      "st.param.b64 [__cc_bounds], %t2;\n"
      "st.param.b64 [__cc_bounds+8], %t3;\n"
      "st.param.b32 [__cc_bounds+16], %u11;\n"
      "ret;\n"
      "$none:\n"
      "st.param.b64 [__cc_bounds], {noLive};\n"
      "st.param.b64 [__cc_bounds+8], 0;\n"
      "st.param.b32 [__cc_bounds+16], {dead};\n"
      "ret;\n"
      "$unknown:\n"
      "st.param.b64 [__cc_bounds], 0;\n"
      "st.param.b64 [__cc_bounds+8], {all};\n"
      "st.param.b32 [__cc_bounds+16], {unknownMeta};\n"
      "ret;\n"
      "}}\n",
      fmt::arg("name", frameLookupName(unit)), fmt::arg("entries", kFrameTableEntries),
      fmt::arg("liveEntry", entry("%u3", kFrameTableHeaderBytes, "%u8", "%u9", "")),
      fmt::arg("inside", picked("%u12", "%u8", "%u9", "%u11")),
      fmt::arg("below", picked("%u13", "%u8", "%u17", "%u16")),
      fmt::arg("endOnly", picked("%u13", "%u8", "%u9", "%u11")),
      fmt::arg("otherSerial", picked("%u14", "%u8", "%u9", "%u11")),
      fmt::arg("ringEntry", entry("%u3", kFrameTableOverwrittenOffset, "%u8", "%u9", "%u11")),
      fmt::arg("returnedEntry", entry("%u3", kFrameTableHeaderBytes, "%u8", "%u9", "%u11")),
      fmt::arg("narrow", frameArrayNarrowing(unit, arrays)), fmt::arg("tagShift", abi::kMetaTagShift),
      fmt::arg("live", live), fmt::arg("dead", dead), fmt::arg("reused", reused), fmt::arg("overwritten", overwritten),
      fmt::arg("ringEntries", kFrameTableOverwritten), fmt::arg("noLive", abi::kNoLiveLocal),
      fmt::arg("all", kUnknownSize), fmt::arg("unknownMeta", kLiveMeta));
}

}  // namespace cucatch::instrument
