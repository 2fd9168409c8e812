#include "analysis/ValueRange.h"

#include <algorithm>
#include <cstdlib>

#include "ptx/InstrInfo.h"


namespace cucatch::analysis {

using namespace cucatch::ptx;

namespace {
constexpr int kMaxDepth = 12;
constexpr int64_t kU32Max = 0xFFFFFFFFll;

std::optional<Interval> bounded(__int128 lo, __int128 hi) {
  if (lo < 0 || hi > kU32Max || lo > hi) return std::nullopt;  // may wrap: unbounded
  return Interval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}
// An offset from a symbol, where it stays within 2^40 either way (no variable is larger): the
// sums and products of bounded terms, computed wide, never wrap into a false proof.
std::optional<Interval> offsetBounded(__int128 lo, __int128 hi) {
  constexpr __int128 kLimit = __int128(1) << 40;
  if (lo < -kLimit || hi > kLimit || lo > hi) return std::nullopt;
  return Interval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}
}  // namespace

ValueRanges::ValueRanges(const Function& f, const PointerAnalysis& pa) : f_(f), pa_(pa) {
  // A device function may be called from any kernel: only a kernel's own bounds bound %tid.
  // .reqntid fixes each dimension; .maxntid bounds the block's threads (their product: a kernel
  // of .maxntid 256, 1, 1 may be launched as 16 x 16), so each dimension by that product.
  if (f.isEntry)
    for (const auto& a : f.attributes) {
      if (a.directive != ".maxntid" && a.directive != ".reqntid") continue;
      int64_t n[3] = {1, 1, 1};
      for (size_t k = 0; k < 3 && k < a.arguments.size(); ++k) n[k] = std::strtoll(a.arguments[k].c_str(), nullptr, 0);
      if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0) continue;
      for (size_t k = 0; k < 3; ++k) {
        int64_t most = a.directive == ".reqntid" ? n[k] : n[0] * n[1] * n[2];
        if (maxThreads_[k] == 0 || most < maxThreads_[k]) maxThreads_[k] = most;
      }
    }
}

const Instruction* ValueRanges::onlyDefinition(const std::string& reg) const {
  std::optional<size_t> s = pa_.onlyDefinition(reg);
  return s ? &std::get<Instruction>(f_.body[*s]) : nullptr;
}

std::optional<Interval> ValueRanges::specialRegister(const Operand& o) const {
  if (o.text == "%laneid") return Interval{0, 31};
  if (o.text == "%tid") {
    size_t k = dimensionOf(o);
    if (k < 3 && maxThreads_[k] > 0) return Interval{0, maxThreads_[k] - 1};
  }
  return std::nullopt;
}

std::optional<Interval> ValueRanges::operand(const Operand& o, int depth) const {
  if (o.kind == OperandKind::Integer) return bounded(o.value, o.value);
  if (o.kind == OperandKind::Name && !o.text.empty() && o.text[0] == '%' && !pa_.registers().isRegister(o.text))
    return specialRegister(o);
  if (o.kind == OperandKind::Name && pa_.registers().is32Bit(o.text)) return of(o.text, depth + 1);
  return std::nullopt;
}

std::optional<Interval> ValueRanges::of(const std::string& reg) const { return of(reg, 0); }

std::optional<Interval> ValueRanges::of(const std::string& reg, int depth) const {
  if (depth > kMaxDepth) return std::nullopt;
  const Instruction* in = onlyDefinition(reg);
  // (Saturating arithmetic clamps where the bounds below assume exact integers.)
  if (!in || in->operands.size() < 2 || in->hasModifier(".sat")) return std::nullopt;
  const auto& ops = in->operands;
  const std::string& op = in->opcode;
  bool isUnsigned = in->hasModifier(".u32") || in->hasModifier(".b32");
  auto a = [&] { return operand(ops[1], depth); };
  auto b = [&] { return ops.size() > 2 ? operand(ops[2], depth) : std::nullopt; };
  if (op == "mov" && ops.size() == 2) return operand(ops[1], depth);
  if (op == "and" && ops.size() == 3) {
    // x & c is in [0, c] for a non-negative mask, whatever x.
    for (int k = 1; k <= 2; ++k)
      if (ops[k].kind == OperandKind::Integer && ops[k].value >= 0 && ops[k].value <= kU32Max)
        return Interval{0, ops[k].value};
    return std::nullopt;
  }
  if (op == "rem" && isUnsigned && ops.size() == 3 && ops[2].kind == OperandKind::Integer && ops[2].value > 0)
    return Interval{0, ops[2].value - 1};
  auto x = a(), y = b();
  if (!x || (ops.size() > 2 && !y)) return std::nullopt;
  if (op == "min" && isUnsigned && y) return bounded(std::min(x->lo, y->lo), std::min(x->hi, y->hi));
  if (op == "max" && isUnsigned && y) return bounded(std::max(x->lo, y->lo), std::max(x->hi, y->hi));
  using Wide = __int128;
  if (op == "add" && y) return bounded(Wide(x->lo) + y->lo, Wide(x->hi) + y->hi);
  if (op == "shl" && y && y->lo == y->hi && y->lo < 32) return bounded(Wide(x->lo) << y->lo, Wide(x->hi) << y->lo);
  if (op == "shr" && isUnsigned && y && y->lo == y->hi && y->lo < 32) return bounded(x->lo >> y->lo, x->hi >> y->lo);
  if (op == "mul" && in->hasModifier(".lo") && y) return bounded(Wide(x->lo) * y->lo, Wide(x->hi) * y->hi);
  return std::nullopt;
}

std::optional<std::pair<std::string, Interval>> ValueRanges::offsetFromSymbol(const std::string& reg) const {
  return offsetFromSymbol(reg, 0);
}

std::optional<std::pair<std::string, Interval>> ValueRanges::firstByteOffsets(const AccessSite& a) const {
  std::optional<std::pair<std::string, Interval>> from{{a.addressSymbol, Interval{0, 0}}};
  if (a.addressSymbol.empty()) from = offsetFromSymbol(a.addressRegister);
  if (!from) return std::nullopt;
  int64_t extra = std::get<Instruction>(f_.body[a.statement]).operands[a.access.addressOperand].value;
  from->second.lo += extra;
  from->second.hi += extra;
  return from;
}

std::optional<Interval> ValueRanges::wideTerm(const std::string& reg, int depth) const {
  // A 64-bit index masked by a constant, or made from a bounded 32-bit one: zero- or
  // sign-extended (a signed value is non-negative where its unsigned range stays below 2^31),
  // or widened times a constant (mul.wide: an element index scaled to bytes).
  if (depth > kMaxDepth) return std::nullopt;
  const Instruction* in = onlyDefinition(reg);
  if (!in || in->operands.size() < 2 || in->operands[1].kind != OperandKind::Name) return std::nullopt;
  const auto& ops = in->operands;
  // x & c is in [0, c] for a non-negative mask, whatever x (a byte offset masked to a table);
  // masks as wide as the 32-bit ones of(): a wider term bounds no address usefully, and the sums
  // below stay far from overflowing.
  if (in->opcode == "and" && ops.size() == 3 && ops[2].kind == OperandKind::Integer && ops[2].value >= 0 &&
      ops[2].value <= kU32Max)
    return Interval{0, ops[2].value};
  // A bounded 64-bit term shifted left by a constant: an element index scaled to bytes, as a
  // debug build writes it (cvt.s64.s32, then shl.b64).
  if (in->opcode == "shl" && in->hasModifier(".b64") && ops.size() == 3 && ops[1].kind == OperandKind::Name &&
      pa_.registers().is64Bit(ops[1].text) && ops[2].kind == OperandKind::Integer && ops[2].value >= 0 &&
      ops[2].value < 32) {
    auto x = wideTerm(ops[1].text, depth + 1);
    if (!x) return std::nullopt;
    return offsetBounded(__int128(x->lo) << ops[2].value, __int128(x->hi) << ops[2].value);
  }
  bool isSigned = in->hasModifier(".s32");
  if (!in->hasModifier(".u32") && !isSigned) return std::nullopt;
  auto x = operand(ops[1], depth);
  if (!x || (isSigned && x->hi > 0x7FFFFFFFll)) return std::nullopt;
  if (in->opcode == "cvt" && ops.size() == 2) return x;
  if (in->opcode == "mul" && in->hasModifier(".wide") && ops.size() == 3 && ops[2].kind == OperandKind::Integer &&
      ops[2].value >= 0 && ops[2].value <= kU32Max)
    return offsetBounded(__int128(x->lo) * ops[2].value, __int128(x->hi) * ops[2].value);
  return std::nullopt;
}

std::optional<std::pair<std::string, Interval>> ValueRanges::offsetFromSymbol(const std::string& reg,
                                                                               int depth) const {
  if (depth > kMaxDepth) return std::nullopt;
  const Instruction* in = onlyDefinition(reg);
  if (!in || in->operands.size() < 2) return std::nullopt;
  const auto& ops = in->operands;
  const RegisterFile& regs = pa_.registers();
  // (A local variable's address made generic keeps its offset from the variable: nvcc's %SP.)
  if (in->opcode == "cvta" && in->hasModifier(".local") && !in->hasModifier(".to") && ops.size() == 2 &&
      ops[1].kind == OperandKind::Name && regs.is64Bit(ops[1].text))
    return offsetFromSymbol(ops[1].text, depth + 1);
  if (in->opcode == "mov" && ops.size() == 2 && ops[1].kind == OperandKind::Name) {
    if (regs.isRegister(ops[1].text)) return offsetFromSymbol(ops[1].text, depth + 1);
    // A variable's symbol (special registers such as %tid.x are not addresses).
    if (ops[1].text.empty() || ops[1].text[0] == '%') return std::nullopt;
    return std::make_pair(ops[1].text, Interval{0, 0});
  }
  if (in->opcode == "add" && ops.size() == 3) {
    // One side leads to the symbol, the other is a bounded integer.
    for (int k = 1; k <= 2; ++k) {
      // (64-bit: a local variable's address, as nvcc makes its frame's: mov.u64 %SPL, __local_depot0.)
      if (ops[k].kind != OperandKind::Name || !(regs.is32Bit(ops[k].text) || regs.is64Bit(ops[k].text))) continue;
      auto base = offsetFromSymbol(ops[k].text, depth + 1);
      if (!base) continue;
      auto term = ops[3 - k].kind == OperandKind::Name && regs.is64Bit(ops[3 - k].text) ? wideTerm(ops[3 - k].text, depth)
                                                                                         : operand(ops[3 - k], depth);
      if (!term) continue;
      auto sum = offsetBounded(__int128(base->second.lo) + term->lo, __int128(base->second.hi) + term->hi);
      if (!sum) continue;
      return std::make_pair(base->first, *sum);
    }
  }
  return std::nullopt;
}

}  // namespace cucatch::analysis
