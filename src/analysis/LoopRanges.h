// Loops whose accesses can be checked once for the whole loop, before it (issue 13): a loop
// of one basic block (nvcc's inner loops at -O3) that steps a 32-bit induction variable by a
// positive constant and goes round again while `variable < bound`, and the accesses in it
// whose address is a pointer the loop does not change plus the variable's value at the start
// of the iteration times a constant.
//
// At the start of each iteration the variable holds its value on entry, then values below
// the bound: all within [entry, max(entry, bound - 1)], as long as stepping never wraps around
// (which the check before the loop tests too). An access's addresses over the whole loop lie
// in the range those values give, so one check of that range before the loop covers them all;
// where it fails, the accesses' own checks run as before and report the first one out of
// bounds. The range may be wider than what the loop touches (an exit taken early), never
// narrower.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct AffineAccess {
  const AccessSite* access = nullptr;
  std::string base;   // 64-bit register the loop does not define
  int64_t scale = 0;  // bytes per unit of the variable (> 0)
};

struct StridedLoop {
  size_t block = 0;          // the loop's one block (CFG index)
  size_t preheaderLast = 0;  // last statement of the block that enters it
  std::string variable;      // the induction variable, a 32-bit register
  bool isSigned = false;     // compared and widened as s32 (else u32)
  int64_t step = 0;          // > 0
  ptx::Operand bound;        // a register the loop does not define, or an immediate
  // The bound's value where it is an immediate, as the comparison reads it (nvcc writes
  // 3000000000 in a setp.lt.u32 as -1294967296).
  int64_t boundValue() const {
    return isSigned ? int64_t{static_cast<int32_t>(bound.value)} : int64_t{static_cast<uint32_t>(bound.value)};
  }
  std::vector<AffineAccess> accesses;
};

// The loops of `f` with at least one of `candidates` (accesses with a 64-bit address register)
// in the affine form above. A loop with a call in it is left out: the memory may be freed there
// and the temporal check must run at each access.
std::vector<StridedLoop> stridedLoops(const ptx::Function& f, const CFG& cfg,
                                      const std::vector<const AccessSite*>& candidates);

}  // namespace cucatch::analysis
