// Addresses a loop can only take a few values of, known before it (issue 13).
//
// A copy web of a loop is a set of 32-bit registers that the loop defines only by moving one of
// them, a register the loop does not define, or an immediate into another: nvcc's phi copies for
// a ping-pong buffer's `swap(from, to)` (block_scan: `from` and `to` only ever hold 0 and
// blockDim.x). Anywhere in the loop such a register holds one of the web's candidates: the
// value a web register held when the loop was entered, or a value the loop moves in (a register
// the loop does not define reads the same before the loop and in it).
//
// An access in the loop whose address the loop computes from one web register (read once) and
// values it does not change, by integer operations each defined once in the loop and
// dominating its reader, takes one of as many addresses as the web has candidates: the same operations applied
// to each candidate before the loop give them all. One check of each before the loop covers the
// access at every iteration; where one fails, its own check runs as before and reports it.
// The range may be wider than what the loop touches (a candidate it never uses), never narrower.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct ValueSetAccess {
  const AccessSite* access = nullptr;
  std::string webRegister;     // the web register its address is computed from
  // The statements computing the address from it, each after those it reads (none where the
  // address register is a web register itself).
  std::vector<size_t> chain;
};

struct ValueSetLoop {
  size_t header = 0;         // the loop (CFG block index of its header)
  size_t preheaderLast = 0;  // last statement of the one block outside the loop that enters it
  // Every value a web register can hold in the loop, as operands readable at the preheader's
  // end: the web's registers themselves (their values on entry) and what the loop moves in.
  std::vector<ptx::Operand> candidates;
  std::vector<ValueSetAccess> accesses;
};

// The loops of `f` with at least one of `candidates` (accesses through a 32-bit address
// register) whose address is computed from a copy web as above. At most `maxCandidates` values
// per web (each costs a check before the loop per access).
std::vector<ValueSetLoop> valueSetLoops(const ptx::Function& f, const CFG& cfg,
                                        const std::vector<const AccessSite*>& candidates, size_t maxCandidates = 4);

}  // namespace cucatch::analysis
