// Families of accesses: accesses of one basic block whose addresses are one expression evaluated
// at different constants, and that expression non-decreasing in the constant, so that the
// access of the least constant has the lowest address and the one of the greatest the highest.
// The taps of a clamped stencil are one: `row[min(max(x + dx, 0), n - 1)]` for dx = -3..3 is
//
//   add.s32 %r, %x, dx;  max.s32 ..., 0;  min.s32 ..., %n1;  cvt.s64.s32;  add.s64 %row;  shl 2;  add.s64 %in
//
// seven times, each through its own registers, so no two share an address register (which
// FunctionChecks::coalescedGroups needs). Every address of a family lies between its lowest and
// its highest, and an allocation is contiguous: where those two are inside it, so is every
// other, and two checks cover the family.
//
// What makes the comparison hold: every operation on the way from the constant to the address
// is non-decreasing in that operand (add; sub's first operand; min and max; widening cvt of the
// signedness the operations below it use; shl and mul by a non-negative constant), taken over
// the integers. A computation that wraps around (an index near 2^31) is where that fails: there a
// member between the two extremes is not checked. Every address checked is one the block goes on
// to access, so what the checks report is a real access, never a correct one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct AddressFamily {
  // In statement order. Each runs if the first does (one basic block, unguarded, nothing between
  // them that may not come back), through the same access size and offset, from the same base.
  std::vector<const AccessSite*> members;
  const AccessSite* lowest = nullptr;   // the member of the least constant: the lowest address
  const AccessSite* highest = nullptr;  // the member of the greatest constant: the highest address
  // For `lowest` and `highest`: the statements (ascending) of its address expression at or after
  // the first member's, which must run again, just before the first member, to have its address
  // there (its other values were made before). Empty where its address register already holds
  // it there.
  std::vector<size_t> lowestRecomputed, highestRecomputed;
};

// The families of at least three accesses among `candidates` (accesses of one function, in
// statement order; `registers` its register file). An access is in one family at most; the
// others are in none.
std::vector<AddressFamily> addressFamilies(const ptx::Function& f, const CFG& cfg, const RegisterFile& registers,
                                           const std::vector<const AccessSite*>& candidates);

}  // namespace cucatch::analysis
