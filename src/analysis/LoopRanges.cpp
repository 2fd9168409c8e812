#include "analysis/LoopRanges.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ptx/InstrInfo.h"

namespace cucatch::analysis {

using namespace cucatch::ptx;

namespace {

bool hasModifiers(const Instruction& in, std::initializer_list<const char*> wanted) {
  return in.modifiers.size() == wanted.size() && std::equal(wanted.begin(), wanted.end(), in.modifiers.begin());
}

bool isName(const Operand& o, const std::string& name) { return o.kind == OperandKind::Name && !o.negated && o.text == name && o.extra.empty(); }

// A 32-bit instruction's immediate, as the instruction reads it (`0xFFFFFFFF` in an add.s32 is
// -1), where that is positive.
std::optional<int64_t> positiveImmediate(const Operand& o, bool isSigned) {
  if (o.kind != OperandKind::Integer) return std::nullopt;
  int64_t v = isSigned ? int64_t{static_cast<int32_t>(o.value)} : int64_t{static_cast<uint32_t>(o.value)};
  if (v <= 0) return std::nullopt;
  return v;
}

// The definitions of each register in one block: statement indices, in order.
class BlockDefs {
 public:
  BlockDefs(const Function& f, const BasicBlock& b) {
    for (size_t i = b.first; i < b.last; ++i)
      if (const auto* in = std::get_if<Instruction>(&f.body[i]))
        forEachDefinedRegister(*in, [&](const std::string& r) { defs_[r].push_back(i); });
  }
  bool defines(const std::string& reg) const { return defs_.count(reg) != 0; }
  // The statement of `reg`'s one definition in the block, if it has exactly one.
  std::optional<size_t> only(const std::string& reg) const {
    auto it = defs_.find(reg);
    if (it == defs_.end() || it->second.size() != 1) return std::nullopt;
    return it->second.front();
  }

 private:
  std::unordered_map<std::string, std::vector<size_t>> defs_;
};

}  // namespace

std::vector<StridedLoop> stridedLoops(const Function& f, const CFG& cfg, const std::vector<const AccessSite*>& candidates) {
  std::vector<StridedLoop> out;
  for (const auto& loop : cfg.loops()) {
    if (loop.blocks.size() != 1) continue;
    size_t h = loop.header;
    const BasicBlock& block = cfg.blocks()[h];
    // The block's label and its closing `@%p bra label`.
    std::string label;
    for (size_t i = block.first; i < block.last && label.empty(); ++i) {
      if (std::holds_alternative<Instruction>(f.body[i])) break;
      if (const auto* l = std::get_if<Label>(&f.body[i])) label = l->name;
    }
    const auto* branch = block.last > block.first ? std::get_if<Instruction>(&f.body[block.last - 1]) : nullptr;
    if (label.empty() || !branch || branch->opcode != "bra" || !branch->guard || branch->guard->negated ||
        branch->operands.empty() || !isName(branch->operands[0], label))
      continue;
    bool hasCall = false;
    for (size_t i = block.first; i < block.last; ++i)
      if (const auto* in = std::get_if<Instruction>(&f.body[i]); in && in->opcode == "call") hasCall = true;
    if (hasCall) continue;
    BlockDefs defs(f, block);
    // The loop goes on while `variable < bound`: the last setp of the branch's predicate.
    auto setpAt = defs.only(branch->guard->predicate);
    if (!setpAt) continue;
    const auto& setp = std::get<Instruction>(f.body[*setpAt]);
    bool isSigned;
    if (setp.opcode != "setp" || setp.guard || setp.operands.size() != 3 || setp.operands[0].kind != OperandKind::Name)
      continue;
    if (hasModifiers(setp, {".lt", ".u32"}))
      isSigned = false;
    else if (hasModifiers(setp, {".lt", ".s32"}))
      isSigned = true;
    else
      continue;
    const Operand& var = setp.operands[1];
    const Operand& bound = setp.operands[2];
    if (var.kind != OperandKind::Name || var.negated || !var.extra.empty()) continue;
    if (bound.kind == OperandKind::Name ? (bound.negated || !bound.extra.empty() || defs.defines(bound.text))
                                        : bound.kind != OperandKind::Integer)
      continue;
    // One step in the loop, before the test: add.s32/u32 variable, variable, step.
    auto stepAt = defs.only(var.text);
    if (!stepAt || *stepAt > *setpAt) continue;
    const auto& add = std::get<Instruction>(f.body[*stepAt]);
    if (add.opcode != "add" || add.guard || add.operands.size() != 3 ||
        !(hasModifiers(add, {".s32"}) || hasModifiers(add, {".u32"})) || !isName(add.operands[0], var.text))
      continue;
    // (As a signed 32-bit number whatever the type: a step of 0xFFFFFFFF counts down.)
    std::optional<int64_t> step;
    if (isName(add.operands[1], var.text)) step = positiveImmediate(add.operands[2], true);
    else if (isName(add.operands[2], var.text)) step = positiveImmediate(add.operands[1], true);
    if (!step) continue;
    // The block that enters the loop.
    std::vector<size_t> outside;
    for (size_t p : block.predecessors)
      if (p != h) outside.push_back(p);
    if (outside.size() != 1 || cfg.blocks()[outside[0]].last == cfg.blocks()[outside[0]].first) continue;

    StridedLoop sl;
    sl.block = h;
    sl.preheaderLast = cfg.blocks()[outside[0]].last - 1;
    sl.variable = var.text;
    sl.isSigned = isSigned;
    sl.step = *step;
    sl.bound = bound;
    const char* widening = isSigned ? ".s32" : ".u32";
    for (const AccessSite* a : candidates) {
      if (cfg.blockOf(a->statement) != h || a->addressRegister.empty()) continue;
      // address = base + product, product = mul.wide variable * scale, computed before the step.
      auto addAt = defs.only(a->addressRegister);
      if (!addAt || *addAt > a->statement) continue;
      const auto& sum = std::get<Instruction>(f.body[*addAt]);
      if (sum.opcode != "add" || sum.guard || sum.operands.size() != 3 ||
          !(hasModifiers(sum, {".s64"}) || hasModifiers(sum, {".u64"})))
        continue;
      for (int k = 1; k <= 2; ++k) {
        const Operand& base = sum.operands[k];
        const Operand& product = sum.operands[3 - k];
        if (base.kind != OperandKind::Name || product.kind != OperandKind::Name || base.negated || product.negated ||
            defs.defines(base.text))
          continue;
        auto mulAt = defs.only(product.text);
        if (!mulAt || *mulAt > *stepAt || *mulAt > *addAt) continue;
        const auto& mul = std::get<Instruction>(f.body[*mulAt]);
        if (mul.opcode != "mul" || mul.guard || mul.operands.size() != 3 || !hasModifiers(mul, {".wide", widening}))
          continue;
        std::optional<int64_t> scale;
        if (isName(mul.operands[1], var.text)) scale = positiveImmediate(mul.operands[2], isSigned);
        else if (isName(mul.operands[2], var.text)) scale = positiveImmediate(mul.operands[1], isSigned);
        if (!scale) continue;
        sl.accesses.push_back({a, base.text, *scale});
        break;
      }
    }
    if (!sl.accesses.empty()) out.push_back(std::move(sl));
  }
  return out;
}

}  // namespace cucatch::analysis
