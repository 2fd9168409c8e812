// Families of accesses: accesses of one basic block whose addresses are one expression evaluated
// at different constants, and that expression monotone in each constant, so that the accesses of
// the extreme constants have the lowest and the highest address. The taps of a clamped stencil are
// one: `row[min(max(x + dx, 0), n - 1)]` for dx = -3..3 is
//
//   add.s32 %r, %x, dx;  max.s32 ..., 0;  min.s32 ..., %n1;  cvt.s64.s32;  add.s64 %row;  shl 2;  add.s64 %in
//
// seven times, each through its own registers, so no two share an address register (which
// FunctionChecks::coalescedGroups needs). Every address of a family lies between its lowest and
// its highest, and an allocation is contiguous: where those two are inside it, so is every
// other, and two checks cover the family.
//
// A 2-D stencil's taps are one family in two constants: `in[min(max(y + dy, 0), n - 1) * n +
// min(max(x + dx, 0), n - 1)]` for dy, dx = -3..3, the row's constant and the column's in two
// operands of one add. The address is monotone in each of them whatever the other is; in dy it
// goes up or down as the sign of n (a register) says, the same for every tap. So the lowest and
// the highest address are among the four corners (the least and greatest dy, with the least and
// greatest dx), and checks of those four cover the 49 taps (two, where both constants are known
// to raise the address). A family in two constants needs every corner to be a member: an address
// checked is always one the block goes on to access, so what a check reports is a real access.
//
// What makes the comparison hold: every operation on the way from a constant to the address is
// monotone in that operand, in a direction no other constant changes (add; sub's first operand;
// min and max; widening cvt of the signedness the operations below it use; shl and mul by a
// non-negative constant: non-decreasing; mul.wide and mad.wide by a value that is the same in
// every member: either way, by its sign), taken over the integers. A computation that wraps
// around (an index near 2^31) is where that fails: there a member between the extremes is not
// checked. Every address checked is one the block goes on to access, so what the checks report is
// a real access, never a correct one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct AddressFamily {
  // In statement order, through the same access size and offset, from the same base. In a
  // family of one block, each runs if the first does (unguarded, nothing between them that may
  // not come back); in one across guards, some may not run at all (below, `region`).
  std::vector<const AccessSite*> members;
  // The members whose checks cover the family: those of the extreme constants (the lowest and the
  // highest address; in two constants, the corners), lowest first. Each comes with the statements
  // (ascending) of its address expression at or after the first member's, which must run again,
  // just before the first member, to have its address there (its other values were made before);
  // none where its address register already holds it there.
  struct Extreme {
    const AccessSite* access = nullptr;
    std::vector<size_t> recomputed;
  };
  std::vector<Extreme> extremes;
  // A family across guards (guardedFamilies): statements [from, to) of the function, entered
  // only at `from` and left only to `to` (a fall-through or a branch to a label there), with no
  // backward branch, call, barrier or warp-wide operation between, hold every member; each
  // extreme's `recomputed` statements run again at `from`. None for a family of one block.
  struct Region {
    size_t from = 0, to = 0;
  };
  std::optional<Region> region;
  // (Across guards:) the one base definition every member's address comes from (index into
  // PointerAnalysis::defs()), made before `from` on every path to it and nowhere else, so its
  // register's metadata there is every member's.
  size_t baseDef = 0;
  // (Across guards:) the members go through one address register at several offsets, which the
  // region does not write: their addresses are the register's value at `from` plus their
  // offsets, so one range from the lowest offset to the end of the highest access, against the
  // register's own metadata, covers them all (no extremes: nothing is made again).
  bool oneAddress = false;
};

// The families of at least three accesses among `candidates` (accesses of one function, in
// statement order; `registers` its register file). An access is in one family at most; the
// others are in none.
std::vector<AddressFamily> addressFamilies(const ptx::Function& f, const CFG& cfg, const RegisterFile& registers,
                                           const std::vector<const AccessSite*>& candidates);

// Families across guards: the unrolled `for (r = 0; r < 32; r += 8) if (y + r < rows) v[r] =
// in[(y + r) * cols + x];` puts each access in a block of its own, under its own condition, so
// no family of one block holds them. Where the accesses of one base (at least three, in at least
// two blocks) are one expression at several constants as above, and a region (AddressFamily::
// Region) that begins in the block dominating them all holds them, their extremes' addresses
// can be computed at its start whether or not the accesses run: where both are inside the base's
// bounds, every member that runs is, and nothing in the region can free the memory. (A region
// is at most `kMaxRegionStatements` statements: the instrumentation copies it.) Members may be
// guarded. `candidates` as for addressFamilies, less those in its families.
// Also accesses through one address register at several offsets, at least two in at least two
// blocks, which a region holds and does not write (`for (j = 0; j < 4; ++j) if (i + j < n) s +=
// a[i + j];` becomes [%rd4], [%rd4+4], ... each under its own guard): AddressFamily::oneAddress.
inline constexpr size_t kMaxRegionStatements = 400;
std::vector<AddressFamily> guardedFamilies(const ptx::Function& f, const CFG& cfg, const PointerAnalysis& pa,
                                           const std::vector<const AccessSite*>& candidates);

}  // namespace cucatch::analysis
