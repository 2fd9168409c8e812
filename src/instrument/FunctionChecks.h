// One function as the check passes see it: the analysis they share (computed once), the edits
// they add, the scratch registers and report block their sequences share, and the sites they
// make. Each pass (GlobalChecks, SharedChecks) adds its sequences; `finish` then adds what the
// function needs once: the declarations, the prologue, and the report block failing checks
// branch to.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/CFG.h"
#include "analysis/FrameLayout.h"
#include "analysis/PointerAnalysis.h"
#include "analysis/ValueRange.h"
#include "instrument/BodyEdit.h"
#include "instrument/FrameTable.h"
#include "instrument/LaunchVersions.h"
#include "instrument/MetadataParams.h"
#include "instrument/Sequences.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"
#include "ptx/InstrInfo.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

// What the passes may use or were asked for, the same for every function of a module.
struct CheckOptions {
  // The module's PTX reads %dynamic_smem_size and %total_smem_size (4.1), which bound a shared
  // address of unknown origin by the block's shared window.
  bool sharedWindowKnown = false;
  // The symbol of an unsized `.extern .shared` array, whose address is where the dynamic region
  // starts: the module's own where it declares one (declaring one changes the layout: ptxas
  // pads every kernel's static shared memory to 16 bytes), else CUCATCH_DYNAMIC_SMEM_SYMBOL.
  std::string dynamicShared;
  // Check accesses to dynamic shared memory against the part the kernel carved
  // (analysis/SharedParts.h: a heuristic, off by default).
  bool dynamicSharedParts = false;
  // Check local accesses against the array of the frame they address (analysis/FrameLayout.h),
  // not only against the whole frame (InstrumentOptions::localObjects).
  bool localObjects = true;
  // Accesses through one address register in straight-line code share one range check
  // (coalescedGroups); off, every access gets its own.
  bool coalesce = true;
  // An access whose range a dominating access's check through the same address already
  // covered needs none (dominatedByCheck); off, it gets its own.
  bool removeDominated = true;
  // The accesses of a family (analysis/AddressFamilies.h: one expression at several constants,
  // non-decreasing in it) are covered by the checks of its lowest and highest address, before
  // its first access; off, each gets its own.
  bool families = true;
  // Families across guards (AddressFamilies.h, guardedFamilies) are tested before their region,
  // which runs a copy with their checks where the test fails; off in a module with debug
  // sections, and off, each gets its own check.
  bool guardedFamilies = true;
  // The kernels given a bar.warp.sync before their first warp-synchronous collective
  // (WarpSync.h); none where null.
  const std::set<std::string>* warpResyncKernels = nullptr;
  // A strided loop's affine global accesses are checked once for the loop's whole range before
  // it, their own checks jumped over where it passes (analysis/LoopRanges.h). Off by default:
  // measured, it cost more than it saved in a loop of under one iteration per thread.
  bool loopRanges = false;
  // How metadata reads read a device-heap block's entry (Sequences.h).
  DeviceHeapEntries deviceHeapEntries = DeviceHeapEntries::FromL2;
  // The module's functions whose pointer parameters take their metadata from their callers
  // (MetadataParams.h); none where null.
  const MetadataParams* metadataParams = nullptr;
  // The device functions given their thread's frame table (FrameTable.h); none where null.
  const FrameTable* frameTable = nullptr;
  // Leave out, in a second version of a kernel's body that runs where the launch satisfies the
  // condition, the checks of shared accesses proven for such launches (LaunchVersions.h); off in
  // a module with debug sections.
  bool launchVersions = true;
};

// The abi::AccessFlags of an access of kind `k`, for its error record.
unsigned accessFlags(ptx::AccessKind k);

class FunctionChecks {
 public:
  // Throws std::runtime_error for a function that already uses cucatch's reserved register names.
  FunctionChecks(ptx::Function& f, const analysis::SymbolTable& moduleSymbols, UnitResult& unit,
                 const CheckOptions& options);

  ptx::Function& function;
  const analysis::SymbolTable symbols;  // the module's variables and the function's own
  const analysis::CFG cfg;
  const analysis::PointerAnalysis analysis;
  const FunctionRegs regs;
  UnitResult& unit;
  const CheckOptions options;
  // Bounded values and offsets from variables (proofs that an access needs no check).
  const analysis::ValueRanges ranges;
  // The objects of the function's frame (with options.localObjects): LocalChecks checks local
  // accesses against them, GlobalChecks gives generic pointers made from them their bounds.
  const std::optional<analysis::FrameLayout> frames;
  BodyEdits edits;
  std::string declarations;  // the passes' own registers, declared in the prologue
  std::string entry;         // sequences at function entry, after the shared prologue
  std::string outOfLine;     // the checks' out-of-line parts (CheckCode), before the report block
  // The checks a second version of the body leaves out, and where it runs (LaunchVersions.h).
  LaunchVersion launchVersion;
  // Regions whose checks a test before them makes unneeded where it passes (families across
  // guards): statements [from, to), the test (it sets regs.q(1) where some address is not in
  // bounds; finish starts it), and the checks the region in place leaves out (LaunchVersions.h).
  struct RegionTest {
    size_t from = 0, to = 0;
    std::string test;
    RegionVersion version;
  };
  std::vector<RegionTest> regionTests;
  // The region test of statements [from, to): a new one, or the one already there (two families
  // of one region share its copy).
  RegionTest& regionTest(size_t from, size_t to);

  // A site for access `a` (its statement's instruction, source line, kind, size and space),
  // with a fresh id; the pass records it with addSite once the check is in place.
  Site newSite(const analysis::AccessSite& a) const;
  void addSite(Site site, const analysis::AccessSite& a);
  // What every check of access `a` at `site` is given: the site's id, the address (its register,
  // or the symbol of [symbol+offset]) and offset, the size, the access flags, and a fresh label
  // for its out-of-line part. (The passes add what is theirs: the untagged register, ...)
  CheckSite checkSite(const analysis::AccessSite& a, const Site& site);
  // Access `a` needs no check of its own (dominatedByCheck): counted, with no site.
  void addDominated(const analysis::AccessSite& a);
  // Access `a` is covered by its family's checks (addressFamilies): counted, with no site.
  void addFamilyMember(const analysis::AccessSite& a);
  // A fresh label, "$__cc_<what><n>": "ok" where a fast path goes on, "fail" where a failing
  // check's out-of-line part starts, "slow" where a failing range check's group does.
  std::string newLabel(const char* what = "ok") { return "$__cc_" + std::string(what) + std::to_string(unit.nextLabel++); }
  // The sequences that bound an address by the shared window (sharedWindowBounds) read an
  // `extern __shared__` array's symbol; where it is cucatch's own, the module must declare it:
  // call before adding one.
  void useSharedWindow(const std::string& symbol) {
    if (symbol == CUCATCH_DYNAMIC_SMEM_SYMBOL) unit.usesSharedWindow = true;
  }

  // The metadata parameters (base, size, word) that the callers of this function fill for the
  // parameter `d` loads (MetadataParams.h); none where `d` is not such a load.
  std::vector<std::string> passedMetadata(const analysis::PointerDef& d) const;
  // A local-space access through a pointer this function was given with its bounds, converted
  // to a local address here (`cvta.to.local` of the parameter: nvcc emits it where every caller
  // passes a local pointer): GlobalChecks checks it against those bounds, moved to local
  // addresses, not LocalChecks (which knows only the function's own frame).
  bool localThroughPassedPointer(const analysis::AccessSite& a) const;

  // The byte offset in access `a`'s address operand ([%r+offset]).
  int64_t offsetOf(const analysis::AccessSite& a) const;
  // What one range check for `group` covers: from its lowest offset, `span` bytes to the end of
  // its highest access.
  struct GroupRange {
    int64_t lowest;
    uint64_t span;
  };
  GroupRange rangeOf(const std::vector<const analysis::AccessSite*>& group) const;

  // `checked` (in statement order) in groups that one range check can cover: through the same
  // address register, under the same guard, in one basic block, with no definition of the
  // register or the guard between them, and nothing between them that may not come back (a
  // call, exit, trap), so that every access of a group runs if its first one does. An access
  // whose address only some lanes use (`lanes`) is a group of its own, and so is every access
  // with options.coalesce off.
  std::vector<std::vector<const analysis::AccessSite*>> coalescedGroups(
      const std::vector<const analysis::AccessSite*>& checked) const;

  // For each of `checked` (one pass's accesses, in statement order): whether its check is implied
  // by the check of another of them, B, through the same address register: B dominates it, the
  // range B checks contains its range, B runs whenever it does (B unguarded, or both under the
  // same guard), and on no path from B to it is the register or the guard redefined or a
  // function called (a call may free the memory: the temporal check stays). The register's
  // metadata changes only where the register does, so B's passing check is this one's. Accesses
  // whose address only some lanes use (`lanes`) neither cover nor are covered.
  std::vector<bool> dominatedByCheck(const std::vector<const analysis::AccessSite*>& checked) const;

  // Adds `text` where a loop is entered: at the end of the one block that enters it, whose
  // last statement is `preheaderLast` (before it where it is a branch, bra or brx).
  void atLoopEntry(size_t preheaderLast, const std::string& text);

  // A pass changed the function without a check (a call's arguments: MetadataParams.h): finish
  // rebuilds it all the same.
  void markRewritten() { rewritten_ = true; }
  // Whether a pass added a check to the function.
  bool hasChecks() const { return checks_ != 0; }
  // Adds the declarations, the prologue and the report block if any pass added a check (or
  // marked the function rewritten), and rebuilds the body. Call once, after every pass.
  void finish();

 private:
  std::vector<SourcePlace> places_;  // per statement
  size_t checks_ = 0;
  bool rewritten_ = false;
};

}  // namespace cucatch::instrument
