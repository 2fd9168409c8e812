// Value ranges of 32-bit registers, for proving shared accesses in bounds statically: a
// flow-insensitive interval analysis over registers the function defines exactly once (nvcc's
// PTX is close to SSA), following the operations that bound a value by a constant (and, rem,
// min, shifts and multiplies by constants, immediates). Anything else is unbounded. An address
// made from a variable's symbol plus bounded terms has a bounded offset into the variable.
// Special registers: %laneid is 0..31; in a kernel that declares .reqntid, %tid.x/y/z are below
// its dimensions, and with .maxntid below the product of its (the block's threads).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct Interval {
  int64_t lo = 0, hi = 0;  // inclusive
};

class ValueRanges {
 public:
  ValueRanges(const ptx::Function& f, const PointerAnalysis& pa);
  // The range of the unsigned value of 32-bit register `reg`, if bounded.
  std::optional<Interval> of(const std::string& reg) const;
  // Where `reg` (an address register: 32-bit, or 64-bit for local memory) is `symbol + offset`
  // with `offset` bounded: the symbol and the range of the offset. (A local variable's address
  // made generic, cvta.local, counts as its symbol: the offset is the same in both windows.)
  std::optional<std::pair<std::string, Interval>> offsetFromSymbol(const std::string& reg) const;
  // Where access `a`'s first byte may lie, from the variable its address is made from: its
  // symbol (`[symbol+offset]`), or the symbol its register is (offsetFromSymbol), plus the
  // access's own constant; none where the register's offset is not bounded.
  std::optional<std::pair<std::string, Interval>> firstByteOffsets(const AccessSite& a) const;

 private:
  std::optional<Interval> operand(const ptx::Operand& o, int depth) const;
  // The range of a 64-bit register made from a bounded 32-bit value by cvt or mul.wide.
  std::optional<Interval> wideTerm(const std::string& reg, int depth) const;
  std::optional<Interval> of(const std::string& reg, int depth) const;
  std::optional<std::pair<std::string, Interval>> offsetFromSymbol(const std::string& reg, int depth) const;
  const ptx::Instruction* onlyDefinition(const std::string& reg) const;

  std::optional<Interval> specialRegister(const ptx::Operand& o) const;

  const ptx::Function& f_;
  const PointerAnalysis& pa_;
  int64_t maxThreads_[3] = {0, 0, 0};  // the kernel's .maxntid / .reqntid; 0: unknown
};

}  // namespace cucatch::analysis
