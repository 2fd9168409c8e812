// The parts a kernel carves its dynamic shared memory into (`extern __shared__ char smem[]`,
// then `float* a = (float*)smem; int* b = (int*)(a + n); ...`), told apart by the block-uniform
// terms of the addresses it uses.
//
// Every 32-bit shared address is read as a linear form over registers: the dynamic array's
// symbol, plus a constant, plus coefficient x register terms (through mov, add, sub, shl and
// mul.lo/mad.lo by constants, following the one definition of a register that reaches the use:
// nvcc reuses a register for a pointer stepped in a loop, whose first value is a part's start). A term is uniform when its register
// has the same value in every thread of the block: made, by pure arithmetic, only from kernel
// parameters, constants and special registers that are the same for the block (%ntid, %nctaid,
// %ctaid, %dynamic_smem_size, ...). The uniform terms of an address are where its part starts;
// the constant and the other terms index into that part. Part 0 starts at the symbol itself.
//
// This is a heuristic, not a property of the program: C++ makes the whole dynamic region one
// array, and nvcc emits the same PTX for `(smem + n)[i]` as for `smem[n + i]`, so a stencil
// that indexes `s[radius + j]` with j from -radius looks like a part starting at `radius`
// entered from below. SharedChecks uses parts only where asked to (--shared-parts).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

// symbol + constant + sum(coefficient * register), modulo 2^32 (shared addresses are 32-bit).
struct LinearForm {
  std::string symbol;  // "" when no variable's symbol is part of it
  int64_t constant = 0;
  std::map<std::string, int64_t> terms;  // register -> coefficient (never 0)
};

class DynamicSharedParts {
 public:
  // At most this many parts besides part 0; a kernel that seems to carve more is checked
  // against the whole region (the part bounds cost two registers each).
  static constexpr size_t kMaxParts = 8;

  // Empty unless `f` is a kernel that addresses one dynamic shared array at more than one
  // uniform offset.
  DynamicSharedParts(const ptx::Function& f, const CFG& cfg, const PointerAnalysis& pa, const SymbolTable& symbols);

  // The dynamic array's symbol, or "" when no parts were found.
  const std::string& symbol() const { return symbol_; }
  // Where each part starts, besides part 0: uniform terms (register -> coefficient), added to
  // the symbol. In a fixed order (the first address that uses each).
  const std::vector<std::map<std::string, int64_t>>& starts() const { return starts_; }
  // The part the access at `statement` addresses (0: the first part, i: starts()[i - 1]); none
  // where its address is not the dynamic symbol plus terms.
  std::optional<size_t> partOf(size_t statement) const;
  // The definitions of the uniform registers the starts read, each after those it reads: what
  // recomputes them at kernel entry (statement indices into the function's body).
  const std::vector<size_t>& entryDefinitions() const { return entryDefinitions_; }

  // The linear form of 32-bit register `reg` as statement `at` reads it (a term of itself where
  // it cannot be followed).
  LinearForm formOf(const std::string& reg, size_t at) const;
  // The one definition of `reg` that reaches statement `at` (unguarded), if only one does.
  std::optional<size_t> definitionAt(const std::string& reg, size_t at) const;
  // Whether `reg` has the same value in every thread of the block, by the rules above.
  bool isUniform(const std::string& reg) const;

 private:
  LinearForm formOf(const std::string& reg, size_t at, int depth) const;
  std::optional<LinearForm> operandForm(const ptx::Operand& o, size_t at, int depth) const;
  bool defines(size_t statement, const std::string& reg) const;
  bool isUniform(const std::string& reg, int depth) const;
  bool isKernelParameter(const std::string& name) const;
  void collectDefinitions(const std::string& reg, std::vector<size_t>& out, std::unordered_map<std::string, bool>& seen) const;

  const ptx::Function& f_;
  const CFG& cfg_;
  const PointerAnalysis& pa_;
  std::string symbol_;
  std::vector<std::map<std::string, int64_t>> starts_;
  std::unordered_map<size_t, size_t> partOfStatement_;
  std::vector<size_t> entryDefinitions_;
};

}  // namespace cucatch::analysis
