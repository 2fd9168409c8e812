// The PTX sequences cucatch inserts, as text with named registers: READMETADATA (the
// metadata of a pointer, from its tag or the shadow map), SAFETYCHECK (an access against its
// pointer's metadata), and the module-level pieces (state symbol, marker, report function).
// They follow src/runtime/cucatch_abi.h. What to insert lives here; where, in the passes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/LaunchBounds.h"

namespace cucatch::instrument {

// Registers holding one pointer's metadata, carried alongside the pointer.
struct MetadataRegs {
  std::string base, size, meta;  // .b64, .b64, .b32 (abi::MetadataWord)
};

// Per-function registers the sequences share: the runtime's tables and scratch.
struct FunctionRegs {
  std::string bst = "%__cc_bst", shadowRoot = "%__cc_root", enabled = "%__cc_on";
  std::string t(int i) const { return "%__cc_t" + std::to_string(i); }  // .b64 scratch
  std::string u(int i) const { return "%__cc_u" + std::to_string(i); }  // .b32 scratch
  std::string q(int i) const { return "%__cc_q" + std::to_string(i); }  // .pred scratch
  static constexpr int kScratch64 = 8, kScratch32 = 6, kScratchPred = 4;
};

// How READMETADATA reads the BST entry of a device-heap block (an odd index below 256), which
// device code writes (DeviceHeap.h). Through L1 where no code that runs in a kernel with this
// unit's can have written it since the kernel started (L1 starts clean at each launch); else
// from L2, out of the way, since another SM's malloc or free in the same kernel may have
// changed the entry after this SM's L1 took its line (deviceHeapEntriesMayChange).
enum class DeviceHeapEntries { ThroughL1, FromL2 };

// Guard of the instruction a sequence belongs to ("" when unguarded), e.g. "@%p1 " / "@!%p1 ".
std::string guardPrefix(const std::string& predicate, bool negated);

// Declarations of the shared registers and the loads of the runtime state (function entry).
std::string functionPrologue(const FunctionRegs& r);
std::string declareMetadata(const std::string& prefix, size_t count64, size_t count32);

// `meta` = unknown (entry 0's values: everything passes).
std::string unknownMetadata(const MetadataRegs& m, const std::string& guard);
// Copy / select metadata along with the pointer.
std::string copyMetadata(const MetadataRegs& to, const MetadataRegs& from, const std::string& guard);
std::string selectMetadata(const MetadataRegs& to, const MetadataRegs& a, const MetadataRegs& b,
                           const std::string& predicate, const std::string& guard);
// The metadata a caller passed with a pointer parameter (MetadataParams.h), loaded from its
// metadata parameters `base`, `size`, `meta` where the parameter is loaded.
std::string parameterMetadata(const MetadataRegs& to, const std::string& base, const std::string& size,
                              const std::string& meta, const std::string& guard);
// Before a call: its metadata arguments `names` (base, size, word), declared in the call's scope
// and given `from`.
std::string passedMetadataArguments(const std::vector<std::string>& names, const MetadataRegs& from);
// Static bounds of a variable (module or function scope), its metadata word naming it by
// `objectId` (UnitResult::objectId; abi::kMetaStateVariable).
std::string symbolMetadata(const MetadataRegs& to, const std::string& symbol, uint64_t size, uint8_t objectId,
                           const std::string& guard);
// Bounds of the object of a local frame that starts `start` bytes into it (analysis/FrameLayout.h),
// from the frame's metadata `frame` (local or generic addresses, as the pointer's), the word
// naming the object by `objectId`.
std::string frameObjectMetadata(const MetadataRegs& to, const MetadataRegs& frame, uint64_t start, uint64_t size,
                                uint8_t objectId, const std::string& guard);
// Bounds of the launch's dynamic shared memory (`symbol` the extern __shared__ array), in
// shared-window addresses; uses scratch u4.
std::string dynamicSharedMetadata(const FunctionRegs& r, const MetadataRegs& to, const std::string& symbol,
                                  uint8_t objectId, const std::string& guard);
// Metadata of a window address (shared or const, from a variable's symbol) moved to the generic
// address space with the pointer: `cvta` is the conversion ("cvta.shared.u64"); or of a
// generic pointer into a shared variable moved to another block of the cluster: `cvta` is
// "mapa.u64" and `rank` the block's rank operand.
std::string cvtaMetadata(const MetadataRegs& to, const MetadataRegs& from, const std::string& cvta,
                         const std::string& guard, const std::string& rank = "");
// Metadata of a generic pointer made a local address (`cvta.to.local`): where `from`'s base is in
// the thread's local window (a frame's bounds, as generic addresses), the same bounds as local
// addresses; otherwise unknown (they describe something else: entry 0's, an allocation's).
std::string localCvtaMetadata(const FunctionRegs& r, const MetadataRegs& to, const MetadataRegs& from);
// READMETADATA: decode the tag of `pointer`; tags 16..255 index the BST directly, others go
// through the shadow map by untagged address; then load the BST entry and decide the verdict
// (freed allocation, temporal tag mismatch) that every access through this base will share.
// With `dynamicShared` (an `extern __shared__` array's symbol), a pointer that isspacep.shared
// places in this block's shared window is given the window's bounds instead
// (sharedWindowBounds, as generic addresses): a generic pointer of unknown origin may point into
// shared memory, which no table describes.
// With `frames` (analysis::liveLocalBound: in a kernel), a pointer that isspacep.local places in
// the thread's local window is given the bounds of the local memory live there
// (liveFramesMetadata): the kernel's own frame, or none, so that an address elsewhere, in a frame
// that has returned, fails as a use after scope.
// `directLabel` is a fresh label (where direct-index pointers skip the shadow walk).
// `heapEntries` says how a device-heap block's entry is read (DeviceHeapEntries).
// In a device function given its thread's frame table (FrameTable.h), `table` is the register
// that holds it and `lookup` the unit's lookup function (frameLookupFunction): the pointer's
// bounds are the live frame it is in, or, where it is in none, the frame that returned there
// (abi::kMetaStateFrameTable).
struct LiveFrames {
  bool on = false;
  std::string frame;     // the live frame's symbol; empty: no local address is live
  uint64_t bytes = 0;    // its size
  uint8_t objectId = 0;  // the frame's object in the unit (UnitResult::objectId), for the report
  std::string table, lookup;
};
std::string readMetadata(const FunctionRegs& r, const MetadataRegs& to, const std::string& pointer,
                         const std::string& guard, const std::string& directLabel, DeviceHeapEntries heapEntries,
                         const std::string& dynamicShared = "", const LiveFrames& frames = {});

// A check as inserted: `inlined` goes before the access (the comparison and one branch: all a
// passing thread runs), `outOfLine` at the function's end, before the report block (what only
// a failing thread runs: the report's values moved into place, a coalesced group's own checks).
// Inline, ptxas turned the moves into predicated instructions that every thread issued, 6 to
// 8 per check: in a kernel of 49 clamped loads, more than the comparisons themselves.
struct CheckCode {
  std::string inlined, outOfLine;
  CheckCode& operator+=(const CheckCode& o) {
    inlined += o.inlined;
    outOfLine += o.outOfLine;
    return *this;
  }
};

// SAFETYCHECK before an access through `pointer`+`offset` of `size` bytes: leaves the
// untagged pointer in `untagged` (the access is rewritten to use it) and, on a violation,
// branches to the function's report block (reportBlock) with `site`. `guard` is the access's
// own guard.
struct CheckSite {
  uint32_t site = 0;
  std::string pointer;  // (shared: the 32-bit address register or the symbol)
  int64_t offset = 0;
  unsigned size = 0;
  unsigned accessFlags = 0;  // abi::AccessFlags
  std::string untagged;
  std::string label;  // fresh: where the check's out-of-line part starts
  // (Shared:) the bounds are the block's shared window, not a variable's: the record says so
  // (abi::kMetaStateSharedWindow).
  bool sharedWindow = false;
  // (Shared:) the bounds run from the dynamic shared memory's start to the end of a part of it
  // that starts at this register: the record's size carries it in its high half.
  std::string partStart;
  // Only the lanes below this use their address (ldmatrix .x1/.x2): the others pass. 0: all.
  unsigned lanes = 0;
  // The record's metadata word is the one the function's callers passed in this .param with the
  // generic base in `metaBaseParam` (the bounds are theirs: passedSharedBounds), not a constant;
  // the window's where that base is not in the shared window (the bounds fell back to it).
  std::string metaParam, metaBaseParam;
};
CheckCode safetyCheck(const FunctionRegs& r, const MetadataRegs& m, const CheckSite& c,
                      const std::string& guardPredicate, bool guardNegated);
// The SAFETYCHECK of an access whose bytes are known only at run time (ptx::MemoryAccess::Extent):
// `count` (a 32-bit register or an immediate) times `perUnit` plus `fixed` bytes, made in t4, from
// the address on must lie inside the bounds, with a clear verdict. The report gets the bytes as
// the access's size (at most 2^24 - 1).
// (`countIsRegister`: else an immediate.) An access of no bytes touches nothing and is never reported.
CheckCode extentCheck(const FunctionRegs& r, const MetadataRegs& m, const CheckSite& c, const std::string& count,
                      bool countIsRegister, uint64_t perUnit, uint64_t fixed, const std::string& guardPredicate,
                      bool guardNegated);
// A check inside a loop whose range check before the loop passed (loopRange*: `inRange`) jumps
// from just after the untag to `skipLabel`, the end of its inline part.
std::string skipCheck(const std::string& inRange, const std::string& skipLabel);
// `untagged` = `pointer` without its tag: all an access needs whose range another check
// already covers.
std::string untagPointer(const std::string& untagged, const std::string& pointer);
// One SAFETYCHECK for a group of accesses through the same 64-bit `pointer` (unchanged between
// them, under the same guard, in straight-line code), which all go through `untagged`: the
// range from the lowest offset to the end of the highest access must lie inside the base's
// bounds, and its verdict must be clear. If not, `group` (the group's own checks, in program
// order), out of line from `slowLabel`, reports the first access that fails. `okLabel` ends
// the inline part. Both labels fresh.
CheckCode safetyRangeCheck(const FunctionRegs& r, const MetadataRegs& m, const std::string& pointer,
                           const std::string& untagged, int64_t lowest, uint64_t span,
                           const std::string& guardPredicate, bool guardNegated, const CheckCode& group,
                           const std::string& slowLabel, const std::string& okLabel);

// Before a strided loop (analysis/LoopRanges.h): `inRange` = true, then false where stepping
// `variable` by `step` could wrap around. `bound`: a 32-bit register, or the bound's value as a
// 64-bit number (LoopRanges' boundValue). Leaves in t6/t7 the variable's lowest and highest
// value at an iteration's start (entry, max(entry, bound - 1)), widened to 64 bits, for
// loopRangeAccess.
std::string loopRangeStart(const FunctionRegs& r, const std::string& inRange, const std::string& variable,
                           bool isSigned, const std::string& bound, int64_t step);
// `inRange` &= every address the access `base` + variable * `scale` + `offset` of `size` bytes
// makes over the loop lies in the base's bounds `m`, with its verdict clear.
std::string loopRangeAccess(const FunctionRegs& r, const std::string& inRange, const MetadataRegs& m,
                            const std::string& base, int64_t scale, int64_t offset, uint64_t size);

// Before a region holding a family across guards (analysis/AddressFamilies.h, guardedFamilies):
// `violation` |= some address among `extremes` (64-bit registers, tagged or not) + `offset`, of
// `size` bytes (for one address register at several offsets: the span of them all), is not
// inside the bounds `m`, or their verdict is not clear. Nothing is reported:
// where it is set, the region's checked copy runs (RegionVersions.h). Start `violation` with
// regionTestStart.
std::string regionTestStart(const std::string& violation);
std::string regionFamilyTest(const FunctionRegs& r, const std::string& violation, const MetadataRegs& m,
                             const std::vector<std::string>& extremes, int64_t offset, uint64_t size);

// Shared memory (OOBCHECK, pure arithmetic on 32-bit shared-window addresses): an object's
// bounds travel in two .b32 registers, like a global pointer's metadata.
struct SharedBoundsRegs {
  std::string base, size;
};
// Bounds of a shared object: `symbol`'s address and `size` ("%dynamic_smem_size" for the
// launch's dynamic shared memory, else a number of bytes).
std::string sharedBounds(const SharedBoundsRegs& to, const std::string& symbol, const std::string& size,
                         const std::string& guard);
// Bounds of the block's shared memory as this launch has it: from the end of the dynamic
// region (`dynamicShared`, an unsized `.extern .shared` array's symbol, + %dynamic_smem_size)
// back by %total_smem_size (static and dynamic, rounded up to the allocation unit, so the start
// may lie a little before the first variable), for a shared address of unknown origin. `clamp`
// is a scratch predicate. (PTX 4.1.)
std::string sharedWindowBounds(const SharedBoundsRegs& to, const std::string& dynamicShared, const std::string& clamp,
                               const std::string& guard);
// Bounds that pass every access (an address of unknown origin).
// The bounds of a 32-bit shared address the function made from a pointer parameter
// (`cvta.to.shared` of it), from the generic bounds its callers pass with the parameter
// (`base`, `size`: the metadata .params): moved to the shared window as the pointer was; where
// they are not in the shared window, the window's (`window`, sharedWindowBounds under `@!q2`).
std::string passedSharedBounds(const FunctionRegs& r, const SharedBoundsRegs& to, const std::string& base,
                               const std::string& size, const std::string& window);
std::string unknownSharedBounds(const SharedBoundsRegs& to, const std::string& guard);
std::string copySharedBounds(const SharedBoundsRegs& to, const SharedBoundsRegs& from, const std::string& guard);
// Bounds moved with `mapa.shared::cluster.u32 d, a, rank` to the same object in the block of
// that rank (its shared memory has the same layout); unknown bounds stay unknown (mapa is not
// run on them). `guardPredicate`/`guardNegated`: the mapa's own guard. Uses q2 and q3.
std::string mapaSharedBounds(const FunctionRegs& r, const SharedBoundsRegs& to, const SharedBoundsRegs& from,
                             const std::string& rank, const std::string& guardPredicate, bool guardNegated);
std::string selectSharedBounds(const SharedBoundsRegs& to, const SharedBoundsRegs& a, const SharedBoundsRegs& b,
                               const std::string& predicate, const std::string& guard);
// The check before a shared access at `c.pointer`+`c.offset` (a 32-bit register, or a
// variable's symbol for [symbol+offset]) of `c.size` bytes against `bounds`; on a violation it
// branches to the report block with the address and bounds widened to 64 bits and no tag.
// (Shared addresses carry no tag: `c.untagged` is not used.)
CheckCode sharedCheck(const FunctionRegs& r, const SharedBoundsRegs& bounds, const CheckSite& c,
                      const std::string& guardPredicate, bool guardNegated);
// One check for a group of accesses through the same 32-bit `address` register (unchanged
// between them, under the same guard, in straight-line code): the range from the lowest
// offset to the end of the highest access must lie inside `bounds`. If it does not, some
// access of the group is out of bounds: `group` (the group's own checks, in program order),
// out of line from `slowLabel`, then reports the first that fails. `okLabel` ends the inline
// part.
// Sets q0 where the launch satisfies `condition` (analysis/LaunchBounds.h: each term, an affine
// function of %ntid and %dynamic_smem_size, is >= 0), computed in 64 bits: LaunchVersions' test
// at kernel entry.
std::string launchConditionTest(const FunctionRegs& r, const analysis::LaunchCondition& condition);
CheckCode sharedRangeCheck(const FunctionRegs& r, const SharedBoundsRegs& bounds, const std::string& address,
                           int64_t lowest, uint64_t span, const std::string& guardPredicate, bool guardNegated,
                           const CheckCode& group, const std::string& slowLabel, const std::string& okLabel);

// Local memory: the check before an access at `c.pointer`+`c.offset` (a 64-bit local-window
// address register, or the variable's symbol for [symbol+offset]) of `c.size` bytes against
// the `size` bytes at `start` in local variable `symbol` (a function's frame, or one array of
// it). The bounds are constants (the symbol's address, which ptxas folds); on a violation it
// branches to the report block with the address, those bounds and no tag (local addresses
// carry none).
// The same against a block `alloca` made: its local address and size (64-bit registers holding
// what the alloca gave and was asked for), known at run time only.
CheckCode allocaCheck(const FunctionRegs& r, const std::string& base, const std::string& size, const CheckSite& c,
                      const std::string& guardPredicate, bool guardNegated);
CheckCode localCheck(const FunctionRegs& r, const std::string& symbol, uint64_t start, uint64_t size,
                     const CheckSite& c, const std::string& guardPredicate, bool guardNegated);

// The report block every function with checks ends with: appends an abi::ErrorRecord to the
// runtime's error buffer (the values a failing check left in the function's scratch registers,
// `unit`, block and thread), fences, and traps; in continue mode the thread exits instead. It
// never returns.
std::string reportBlock(const FunctionRegs& r, uint32_t unit);

// `dst` = `src` untagged when `src` is a pointer the runtime tagged: a non-zero tag naming a
// table entry with that tag whose allocation `src` points into (or one past); else `src`
// unchanged, so a 64-bit integer passes as it is whatever its bits. READMETADATA into `m`
// (scratch), then the comparison; uses the function's scratch registers and `pred`.
std::string untagIfOurs(const FunctionRegs& r, const MetadataRegs& m, const std::string& dst, const std::string& src,
                        const std::string& pred, const std::string& directLabel, DeviceHeapEntries heapEntries);

// The device heap (instrument/DeviceHeap.h): whether `callee` is one of the functions whose
// calls go to cucatch's wrappers (malloc, __cuda_syscall_aligned_malloc, free, and the device
// runtime's cudaMalloc and cudaFree, __cudaCDP2Malloc and __cudaCDP2Free), the name of its
// wrapper in `unit`, and the wrappers' text: prototypes (before the first call) and
// definitions (after the module's own declarations of the wrapped functions) for `wrapped`.
// Each wrapper takes the wrapped function's arguments and the call's site. malloc's: the
// block from the real malloc, given (where kFlagHeapTags is set and an odd entry is free) an
// odd entry and that tag, its event logged. free's: a pointer whose tag names a live block it
// starts is marked freed, logged and freed untagged; untagged, it is freed as it is; anything
// else is reported (double free: the entry is freed already; invalid free: not a block's
// start, or not the device heap's) through the wrapper's own report block, and not freed.
bool isDeviceHeapFunction(const std::string& callee);
bool isDeviceHeapFree(const std::string& callee);  // free, or the device runtime's cudaFree
std::string heapWrapperName(const std::string& callee, uint32_t unit);
struct HeapWrappers {
  std::string prototypes, definitions;
};
HeapWrappers deviceHeapWrappers(const std::set<std::string>& wrapped, uint32_t unit);

// The frame table (FrameTable.h): a thread's record of the frames and alloca'd blocks live on
// its stack, in its kernel's local memory. Entries are 64-bit: local start (bits 0..27), size
// (28..47), the frame's object in the unit (48..55, UnitResult::objectId; 0 for a block), the
// serial of the call that pushed it (56..63: 1..255; 0 for a block); after a header of depth
// (frames pushed, also past the capacity), how many entries were ever written (those at and past
// the depth are frames that have returned), the last serial handed out, and how many entries a
// push wrote over; and before a ring of the last kFrameTableOverwritten entries a push wrote over
// (frames that returned, kept so that a stale pointer into one, which a later call's frame now
// covers, still names it). A function that tags its frame's generic pointers
// (abi::kFrameTagShift) tags them with its call's serial.
// (Local addresses were below 2^24 on the H100: each thread's window is 16 MiB; 28 bits leave
// room. A frame's size is at most the 512 KiB a thread may have.)
inline constexpr unsigned kFrameTableEntries = 8;
inline constexpr unsigned kFrameTableOverwritten = 4;  // a power of two
inline constexpr unsigned kFrameTableHeaderBytes = 16;
inline constexpr unsigned kFrameTableOverwrittenOffset = kFrameTableHeaderBytes + 8 * kFrameTableEntries;
inline constexpr unsigned kFrameTableBytes = kFrameTableOverwrittenOffset + 8 * kFrameTableOverwritten;
// The largest size an entry holds (20 bits); a larger frame's entry holds this.
inline constexpr uint64_t kFrameTableMaxFrameBytes = (uint64_t{1} << 20) - 1;
// The registers a function with a table uses: the table's local address, whether it has one
// (a caller without one passes 0), the depth at entry, its call's serial and frame tag (the
// serial at bits 48..55; 0 where the function was given no table), and scratch.
struct FrameTableRegs {
  std::string table = "%__cc_ft", has = "%__cc_ftp", depthAtEntry = "%__cc_ftd", serial = "%__cc_ftk",
              tag = "%__cc_ftt";
};
// Declarations of those registers, and the table at function entry: a kernel's own (`variable`,
// the .local array it declares for it; emptied), or a device function's from its parameter.
std::string frameTablePrologue(const FrameTableRegs& t, const std::string& variable, const std::string& parameter);
// At entry, after the prologue, in a function that pushes a number of entries known only at run
// time (it makes an alloca): the depth its returns restore.
std::string frameTableSaveDepth(const FrameTableRegs& t);
// At entry, after the prologue, in a function that pushes a local variable: its call's serial,
// the next one the table hands out (0 without a table); with `tag`, also its frame tag.
std::string frameTableNewSerial(const FrameTableRegs& t, bool tag);
// After a `cvta.local` that makes `reg` a generic pointer into the function's own frame (under
// the statement's guard prefix `g`): the frame tag.
std::string frameTagged(const FrameTableRegs& t, const std::string& reg, const std::string& g);
// Pushes an entry: a local variable's bounds (`symbol`, `bytes`, `objectId`) with the call's
// serial (frameTableNewSerial), or an alloca's block (its local address `start` and size
// `sizeRegister`, a .u64 register).
std::string frameTablePushVariable(const FrameTableRegs& t, const std::string& symbol, uint64_t bytes, uint8_t objectId);
std::string frameTablePushBlock(const FrameTableRegs& t, const std::string& start, const std::string& sizeRegister);
// Before a return (under its guard: `guardPredicate`, "" for none, and whether negated): the
// depth at entry, restored: the saved one (frameTableSaveDepth), or, with `pushed`, the depth
// less the entries the function pushed (a register fewer to keep across its calls, which in a
// recursive function is stack).
std::string frameTablePop(const FrameTableRegs& t, const std::string& guardPredicate, bool guardNegated,
                          std::optional<size_t> pushed);
// `dst` = `src` without a frame tag where it is a frame-tagged pointer (global tag byte 0, and
// the address without bits 48..63 in the thread's local window); else `src` unchanged, so that
// a 64-bit integer passes as it is. For code that must see plain addresses: a function outside
// the module, the pointers in a printf's argument buffer. `scratch` (.b64) and `pred` are free.
std::string stripFrameTag(const std::string& dst, const std::string& src, const std::string& scratch,
                          const std::string& pred);
// The unit's lookup function (its name, and its definition): given the table, a generic
// address in the local window and the pointer's frame tag (0: none), the bounds and metadata word
// (abi::kMetaStateFrameTable) of the live frame the address is in, or one past the end of (both,
// where it is at the boundary of two), whose serial is the pointer's frame tag (or either is 0);
// else, where it is in a live frame of another serial (the pointer's frame returned, and a later
// call's lies there), with a bad verdict, the pointer's frame where a push kept it among the
// entries it wrote over (abi::kMetaStateFrameOverwritten), or that live frame
// (abi::kMetaStateFrameReused); else
// of the returned frame of the pointer's serial the table still holds there, or an empty range at
// kNoLiveLocal, with a bad verdict; unknown (as entry 0) where frames past the table's capacity
// are live.
// Where the unit's table of frame arrays (`arrays`) gives the frame's arrays (analysis/FrameLayout.h),
// the bounds and the tag byte are the array the address is in (both arrays, and no object, where
// it is at the start of one that is also one past the end of the one before), not the whole
// frame; the definition then comes with that table's.
struct FrameArray {
  uint32_t start = 0;  // in the frame
  uint8_t object = 0;  // UnitResult::objectId
};
using FrameArrayTable = std::map<uint8_t, std::vector<FrameArray>>;  // frame object -> its arrays, by start
std::string frameLookupName(uint32_t unit);
std::string frameLookupFunction(uint32_t unit, const FrameArrayTable& arrays);

// Module level: the state symbol and ABI marker; the name of a unit's marker kernel.
std::string moduleDeclarations();
std::string unitKernelName(uint32_t unit);

}  // namespace cucatch::instrument
