#include "analysis/LaunchBounds.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptx/InstrInfo.h"

namespace cucatch::analysis {

using namespace cucatch::ptx;

namespace {

constexpr int64_t kU32Max = 0xFFFFFFFFll;
// A variable's shared address, and the dynamic shared memory of a launch, stay below this (an
// H100 block has at most 227 KiB of shared memory).
constexpr int64_t kSharedLimit = int64_t(1) << 24;
// Rounds of the fixpoint after which a bound that still changes is taken as unbounded (an
// induction variable grows every round), and the rounds after which every one is.
constexpr int kWidenAfter = 6;
constexpr int kMaxRounds = 40;

using Bound = LaunchBounds::Bound;

Bound unbounded() { return Bound{{}, {}, {}, true}; }

LaunchAffine constantAffine(int64_t c) { return LaunchAffine{c, {}}; }

LaunchAffine plus(const LaunchAffine& a, const LaunchAffine& b) {
  LaunchAffine r{a.constant + b.constant, {}};
  for (size_t v = 0; v < kLaunchValues; ++v) r.k[v] = a.k[v] + b.k[v];
  return r;
}
LaunchAffine minus(const LaunchAffine& a, const LaunchAffine& b) {
  LaunchAffine r{a.constant - b.constant, {}};
  for (size_t v = 0; v < kLaunchValues; ++v) r.k[v] = a.k[v] - b.k[v];
  return r;
}
// (None where a coefficient would pass 2^40: no launch's arithmetic, and int64 stays exact.)
std::optional<LaunchAffine> times(const LaunchAffine& a, int64_t c) {
  constexpr __int128 kLimit = __int128(1) << 40;
  auto product = [&](int64_t x) -> std::optional<int64_t> {
    __int128 p = __int128(x) * c;
    if (p > kLimit || p < -kLimit) return std::nullopt;
    return static_cast<int64_t>(p);
  };
  auto constant = product(a.constant);
  if (!constant) return std::nullopt;
  LaunchAffine r{*constant, {}};
  for (size_t v = 0; v < kLaunchValues; ++v) {
    auto k = product(a.k[v]);
    if (!k) return std::nullopt;
    r.k[v] = *k;
  }
  return r;
}
// Coefficient by coefficient: a lower bound of both (every launch value is non-negative), and an
// upper bound of both.
LaunchAffine lower(const LaunchAffine& a, const LaunchAffine& b) {
  LaunchAffine r{std::min(a.constant, b.constant), {}};
  for (size_t v = 0; v < kLaunchValues; ++v) r.k[v] = std::min(a.k[v], b.k[v]);
  return r;
}
LaunchAffine upper(const LaunchAffine& a, const LaunchAffine& b) {
  LaunchAffine r{std::max(a.constant, b.constant), {}};
  for (size_t v = 0; v < kLaunchValues; ++v) r.k[v] = std::max(a.k[v], b.k[v]);
  return r;
}
// Coefficients this large are not a launch's arithmetic (and keep the products below from
// overflowing int64).
bool small(const LaunchAffine& a) {
  constexpr int64_t kLimit = int64_t(1) << 36;
  if (std::llabs(a.constant) > kLimit) return false;
  return std::all_of(a.k.begin(), a.k.end(), [](int64_t k) { return std::llabs(k) <= kLimit; });
}

Bound join(const Bound& a, const Bound& b) {
  if (a.unbounded || b.unbounded || a.symbol != b.symbol) return unbounded();
  return Bound{lower(a.lo, b.lo), upper(a.hi, b.hi), a.symbol, false};
}

bool is32BitArithmetic(const Instruction& in) {
  return in.hasModifier(".u32") || in.hasModifier(".s32") || in.hasModifier(".b32");
}

}  // namespace

LaunchBounds::LaunchBounds(const Function& f, const PointerAnalysis& pa, const SymbolTable& symbols,
                           const ThreadLimits& threads)
    : f_(f), pa_(pa), symbols_(symbols), threads_(threads) {
  min_ = {1, 1, 1, 0};
  max_ = {1024, 1024, 64, kSharedLimit};
  // A kernel's own bounds on its block (a device function may be called from any kernel):
  // .reqntid fixes each dimension; .maxntid bounds the block's threads, their product (a kernel
  // of __launch_bounds__(256), .maxntid 256, 1, 1, may be launched as 16 x 16), so each
  // dimension is at most that product.
  if (f.isEntry)
    for (const auto& a : f.attributes) {
      if (a.directive != ".maxntid" && a.directive != ".reqntid") continue;
      std::array<int64_t, 3> n{1, 1, 1};
      for (size_t v = 0; v < 3 && v < a.arguments.size(); ++v) n[v] = std::strtoll(a.arguments[v].c_str(), nullptr, 0);
      if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0) continue;
      for (size_t v = 0; v < 3; ++v) {
        if (a.directive == ".reqntid") {
          max_[v] = std::min(max_[v], n[v]);
          min_[v] = std::max(min_[v], n[v]);
        } else {
          max_[v] = std::min(max_[v], n[0] * n[1] * n[2]);
        }
      }
    }

  // Every definition of a 32-bit register, in body order.
  std::vector<std::pair<std::string, const Instruction*>> defs;
  for (const Statement& s : f.body) {
    const auto* in = std::get_if<Instruction>(&s);
    if (!in) continue;
    for (const Operand& o : in->operands)
      if (o.kind == OperandKind::Name && (o.text == "%tid" || o.text == "%ntid"))
        if (size_t d = dimensionOf(o); d < 3) readsDimension_[d] = true;
    forEachDefinedRegister(*in, [&](const std::string& reg) {
      if (!pa_.registers().is32Bit(reg)) return;
      bool own = !in->operands.empty() && in->operands[0].kind == OperandKind::Name && in->operands[0].text == reg;
      defs.emplace_back(reg, own ? in : nullptr);  // (null: a register it writes another way)
      defined_.insert(reg);
    });
  }
  // Optimistic fixpoint: a register starts unreached and takes the join of what its definitions
  // give; an operand not reached yet contributes nothing in that round. Registers still unreached
  // at the end are read on no path that defines them first (or only through each other): they are
  // unbounded, and the fixpoint runs again from there.
  for (;;) {
    for (int round = 0;; ++round) {
      bool changed = false;
      for (const auto& [reg, in] : defs) {
        auto it = bounds_.find(reg);
        if (it != bounds_.end() && it->second.unbounded) continue;
        std::optional<Bound> b = in ? transfer(*in) : std::optional<Bound>(unbounded());
        if (!b) continue;
        Bound next = it == bounds_.end() ? *b : join(it->second, *b);
        if (!next.unbounded && !valid(next)) next = unbounded();
        if (it != bounds_.end() && next == it->second) continue;
        if (it != bounds_.end() && round >= kWidenAfter) next = unbounded();
        bounds_[reg] = next;
        changed = true;
      }
      if (!changed) break;
      if (round >= kMaxRounds) {
        // (Not reached in practice: widening makes every chain short.)
        for (auto& [reg, b] : bounds_) b = unbounded();
        break;
      }
    }
    bool more = false;
    for (const auto& reg : defined_)
      if (!bounds_.count(reg)) {
        bounds_[reg] = unbounded();
        more = true;
      }
    if (!more) break;
  }
}

namespace {
// The largest value `a` takes where each launch value lies in [lo, hi].
__int128 mostOver(const LaunchAffine& a, const std::array<int64_t, kLaunchValues>& lo,
                  const std::array<int64_t, kLaunchValues>& hi) {
  __int128 r = a.constant;
  for (size_t v = 0; v < kLaunchValues; ++v) r += __int128(a.k[v]) * (a.k[v] > 0 ? hi[v] : lo[v]);
  return r;
}
}  // namespace

__int128 LaunchBounds::leastOf(const LaunchAffine& a) const { return -mostOver(minus(LaunchAffine{}, a), min_, max_); }

__int128 LaunchBounds::mostOf(const LaunchAffine& a) const { return mostOver(a, min_, max_); }

LaunchCondition LaunchBounds::weakestTerms(const LaunchCondition& condition) const {
  LaunchCondition kept;
  for (const auto& c : condition) {
    // c is implied by another term d where c >= d at every launch (of two equal ones, the first
    // is kept).
    bool implied = std::any_of(condition.begin(), condition.end(), [&](const LaunchAffine& d) {
      return &c != &d && leastOf(minus(c, d)) >= 0 && (leastOf(minus(d, c)) < 0 || d < c);
    });
    if (!implied) kept.insert(c);
  }
  return kept;
}

// The value is an unsigned 32-bit number that never wrapped: [lo, hi] inside [0, 2^32) for every
// launch (a variable's address, if any, added at anything below kSharedLimit).
bool LaunchBounds::valid(const Bound& b) const {
  if (!small(b.lo) || !small(b.hi)) return false;
  return leastOf(b.lo) >= 0 && mostOf(b.hi) + (b.symbol.empty() ? 0 : kSharedLimit) <= kU32Max;
}

bool LaunchBounds::plausible(const LaunchAffine& term) const {
  // Blocks of at least 32 threads, in the dimensions the function reads (the others 1).
  static constexpr int64_t kShapes[][2] = {{32, 1}, {16, 2}, {8, 4}, {4, 8}, {2, 16}, {1, 32}};
  for (const auto& [x, y] : kShapes) {
    if ((y > 1 && !readsDimension_[1]) || (x > 1 && !readsDimension_[0])) continue;
    std::array<int64_t, kLaunchValues> lo = min_, hi = max_;
    lo[kNtidX] = std::max(lo[kNtidX], x);
    lo[kNtidY] = std::max(lo[kNtidY], y);
    for (size_t d = 0; d < 3; ++d)
      if (!readsDimension_[d]) hi[d] = lo[d];
    bool empty = false;
    for (size_t v = 0; v < kLaunchValues; ++v) empty = empty || lo[v] > hi[v];
    if (!empty && mostOver(term, lo, hi) >= 0) return true;
  }
  return false;
}

ThreadGuards::ThreadGuards(const Function& f, const CFG& cfg, const PointerAnalysis& pa) : f_(f), cfg_(cfg), pa_(pa) {
  for (const Statement& s : f.body)
    if (const auto* in = std::get_if<Instruction>(&s))
      forEachDefinedRegister(*in, [&](const std::string& reg) {
        auto [it, first] = only_.try_emplace(reg, in);
        if (!first || in->guard) it->second = nullptr;
      });
}

const Instruction* ThreadGuards::onlyDefinition(const std::string& reg) const {
  auto it = only_.find(reg);
  return it == only_.end() ? nullptr : it->second;
}

// What predicate `p` being `value` says of %tid: setp of a thread index against a constant (signed
// or unsigned alike: an index is below 1024), and both sides of an and.pred that holds or of an
// or.pred that does not.
void ThreadGuards::learn(ThreadLimits& limits, const std::string& p, bool value, int depth) const {
  const Instruction* in = depth < 4 ? onlyDefinition(p) : nullptr;
  if (!in) return;
  const auto& ops = in->operands;
  if ((in->opcode == "and" || in->opcode == "or") && in->hasModifier(".pred") && ops.size() == 3) {
    if ((in->opcode == "and") != value) return;
    for (size_t k = 1; k <= 2; ++k)
      if (ops[k].kind == OperandKind::Name && !ops[k].negated) learn(limits, ops[k].text, value, depth + 1);
    return;
  }
  if (in->opcode != "setp" || ops.size() != 3 || ops[0].kind != OperandKind::Name || in->modifiers.size() != 2) return;
  // The dimension whose %tid register `o` holds, if it holds one.
  auto threadIndex = [&](const Operand& o) -> std::optional<size_t> {
    if (o.kind != OperandKind::Name || !pa_.registers().is32Bit(o.text)) return std::nullopt;
    const Instruction* def = onlyDefinition(o.text);
    if (!def || def->opcode != "mov" || def->operands.size() != 2 || def->operands[1].text != "%tid")
      return std::nullopt;
    size_t d = dimensionOf(def->operands[1]);
    return d < 3 ? std::optional<size_t>(d) : std::nullopt;
  };
  std::string cmp = in->modifiers[0];
  std::optional<size_t> d = threadIndex(ops[1]);
  const Operand* c = &ops[2];
  if (!d) {  // c OP tid: tid (OP reversed) c
    static const std::unordered_map<std::string, std::string> reversed = {
        {".lt", ".gt"}, {".le", ".ge"}, {".gt", ".lt"}, {".ge", ".le"}, {".eq", ".eq"}, {".ne", ".ne"}};
    d = threadIndex(ops[2]);
    c = &ops[1];
    auto it = reversed.find(cmp);
    if (!d || it == reversed.end()) return;
    cmp = it->second;
  }
  if (c->kind != OperandKind::Integer) return;
  if (!value) {  // what the negation says
    static const std::unordered_map<std::string, std::string> negated = {
        {".lt", ".ge"}, {".le", ".gt"}, {".gt", ".le"}, {".ge", ".lt"}, {".eq", ".ne"}, {".ne", ".eq"}};
    auto it = negated.find(cmp);
    if (it == negated.end()) return;
    cmp = it->second;
  }
  int64_t most = cmp == ".lt" ? c->value - 1 : cmp == ".le" || cmp == ".eq" ? c->value : -1;
  if (most >= 0 && (limits[*d] < 0 || most < limits[*d])) limits[*d] = most;
}

ThreadLimits ThreadGuards::at(size_t statement) const {
  ThreadLimits limits{-1, -1, -1};
  // Every block that dominates the statement's and is entered from one branch only: the branch's
  // predicate holds there (its target) or does not (its fall-through).
  const auto& blocks = cfg_.blocks();
  for (size_t b = cfg_.blockOf(statement);;) {
    const BasicBlock& block = blocks[b];
    if (block.predecessors.size() == 1) {
      const BasicBlock& from = blocks[block.predecessors[0]];
      const auto* branch = from.last > from.first ? std::get_if<Instruction>(&f_.body[from.last - 1]) : nullptr;
      if (branch && branch->opcode == "bra" && branch->guard && from.successors.size() == 2 &&
          !branch->operands.empty()) {
        // Taken where the block starts at the branch's label.
        bool taken = false;
        for (size_t i = block.first; i < block.last; ++i) {
          const auto* l = std::get_if<Label>(&f_.body[i]);
          if (!l) break;
          taken = taken || l->name == branch->operands[0].text;
        }
        learn(limits, branch->guard->predicate, taken != branch->guard->negated, 0);
      }
    }
    size_t up = cfg_.idom()[b];
    if (up == b || up == SIZE_MAX) break;
    b = up;
  }
  return limits;
}

LaunchBounds::Bound LaunchBounds::of(const std::string& reg) const {
  auto it = bounds_.find(reg);
  return it == bounds_.end() ? unbounded() : it->second;
}

std::optional<Bound> LaunchBounds::operand(const Operand& o) const {
  if (o.kind == OperandKind::Integer) {
    if (o.value < 0 || o.value > kU32Max) return unbounded();
    return Bound{constantAffine(o.value), constantAffine(o.value), {}, false};
  }
  if (o.kind != OperandKind::Name || o.negated || o.text.empty()) return unbounded();
  if (pa_.registers().isRegister(o.text)) {
    if (!pa_.registers().is32Bit(o.text)) return unbounded();
    auto it = bounds_.find(o.text);
    // Not reached yet; or never written, so it holds anything.
    if (it == bounds_.end()) return defined_.count(o.text) ? std::nullopt : std::optional<Bound>(unbounded());
    return it->second;
  }
  if (o.text[0] == '%') {
    auto value = [](LaunchValue v, int64_t minus) {
      LaunchAffine a{-minus, {}};
      a.k[v] = 1;
      return a;
    };
    size_t dim = dimensionOf(o);
    if (o.text == "%tid" && dim < 3) {
      if (threads_[dim] >= 0) return Bound{constantAffine(0), constantAffine(threads_[dim]), {}, false};
      return Bound{constantAffine(0), value(static_cast<LaunchValue>(dim), 1), {}, false};
    }
    if (o.text == "%ntid" && dim < 3)
      return Bound{value(static_cast<LaunchValue>(dim), 0), value(static_cast<LaunchValue>(dim), 0), {}, false};
    if (o.text == "%laneid") return Bound{constantAffine(0), constantAffine(31), {}, false};
    if (o.text == "%dynamic_smem_size")
      return Bound{value(kDynamicSmemSize, 0), value(kDynamicSmemSize, 0), {}, false};
    return unbounded();
  }
  // A shared variable's address (any other symbol is not a bound this analysis keeps).
  if (sharedVariable(symbols_, o.text)) return Bound{constantAffine(0), constantAffine(0), o.text, false};
  return unbounded();
}

std::optional<Bound> LaunchBounds::transfer(const Instruction& in) const {
  const auto& ops = in.operands;
  const std::string& op = in.opcode;
  // (Saturating arithmetic clamps where the bounds below assume exact integers: a review's find.)
  if (!is32BitArithmetic(in) || ops.size() < 2 || in.hasModifier(".sat")) return unbounded();
  auto at = [&](size_t k) { return operand(ops[k]); };
  auto immediate = [&](size_t k) -> std::optional<int64_t> {
    if (ops[k].kind != OperandKind::Integer || ops[k].value < 0 || ops[k].value > kU32Max) return std::nullopt;
    return ops[k].value;
  };
  // (A number times a constant: the variable's address, if any, is not scaled.)
  auto scaled = [](const Bound& b, int64_t c) {
    if (b.unbounded || !b.symbol.empty()) return unbounded();
    auto lo = times(b.lo, c), hi = times(b.hi, c);
    if (!lo || !hi) return unbounded();
    return Bound{*lo, *hi, {}, false};
  };
  auto sum = [](const Bound& a, const Bound& b) {
    if (a.unbounded || b.unbounded || (!a.symbol.empty() && !b.symbol.empty())) return unbounded();
    return Bound{plus(a.lo, b.lo), plus(a.hi, b.hi), a.symbol.empty() ? b.symbol : a.symbol, false};
  };
  if (op == "mov" && ops.size() == 2) return at(1);
  if (op == "selp" && ops.size() == 4) {
    auto a = at(1), b = at(2);
    if (!a || !b) return a ? a : b;  // (the other side not reached yet)
    return join(*a, *b);
  }
  if (op == "and" && ops.size() == 3) {
    for (size_t k = 1; k <= 2; ++k)
      if (auto mask = immediate(k)) return Bound{constantAffine(0), constantAffine(*mask), {}, false};
    return unbounded();
  }
  if (op == "rem" && in.hasModifier(".u32") && ops.size() == 3) {
    if (auto c = immediate(2); c && *c > 0) return Bound{constantAffine(0), constantAffine(*c - 1), {}, false};
    return unbounded();
  }
  if (op == "shl" && ops.size() == 3) {
    auto c = immediate(2);
    if (!c || *c >= 32) return unbounded();
    auto x = at(1);
    if (!x) return std::nullopt;
    return scaled(*x, int64_t(1) << *c);
  }
  if (op == "mul" && in.hasModifier(".lo") && ops.size() == 3) {
    for (size_t k = 1; k <= 2; ++k)
      if (auto c = immediate(k)) {
        auto x = at(3 - k);
        if (!x) return std::nullopt;
        return scaled(*x, *c);
      }
    return unbounded();
  }
  if (op == "mad" && in.hasModifier(".lo") && ops.size() == 4) {
    for (size_t k = 1; k <= 2; ++k)
      if (auto c = immediate(k)) {
        auto x = at(3 - k), y = at(3);
        if (!x || !y) return std::nullopt;
        return sum(scaled(*x, *c), *y);
      }
    return unbounded();
  }
  if (op == "add" && ops.size() == 3) {
    // a + not(x) is a - x - 1 (modulo 2^32: nvcc's blockDim.x - 1 - threadIdx.x), where that
    // does not go below 0.
    for (size_t k = 1; k <= 2; ++k) {
      std::optional<size_t> def = ops[k].kind == OperandKind::Name && pa_.registers().is32Bit(ops[k].text)
                                      ? pa_.onlyDefinition(ops[k].text)
                                      : std::nullopt;
      const auto* inverted = def ? std::get_if<Instruction>(&f_.body[*def]) : nullptr;
      if (!inverted || inverted->opcode != "not" || inverted->operands.size() != 2 || !is32BitArithmetic(*inverted))
        continue;
      auto a = at(3 - k), x = operand(inverted->operands[1]);
      if (!a || !x) return std::nullopt;
      if (a->unbounded || x->unbounded || !x->symbol.empty()) return unbounded();
      return Bound{minus(a->lo, plus(x->hi, constantAffine(1))), minus(a->hi, plus(x->lo, constantAffine(1))),
                   a->symbol, false};
    }
  }
  if ((op == "add" || op == "sub") && ops.size() == 3) {
    // (x + -c, as nvcc writes x - c.)
    bool negated = ops[2].kind == OperandKind::Integer && ops[2].value < 0 && ops[2].value >= -kU32Max;
    auto a = at(1);
    auto b = negated ? std::optional<Bound>(Bound{constantAffine(-ops[2].value), constantAffine(-ops[2].value), {}, false})
                     : at(2);
    const bool subtract = (op == "sub") != negated;
    if (!a || !b) return std::nullopt;
    if (!subtract) return sum(*a, *b);
    if (a->unbounded || b->unbounded || !b->symbol.empty()) return unbounded();
    return Bound{minus(a->lo, b->hi), minus(a->hi, b->lo), a->symbol, false};
  }
  if ((op == "min" || op == "max") && ops.size() == 3) {
    auto a = at(1), b = at(2);
    if (!a || !b) return std::nullopt;
    if (a->unbounded || b->unbounded || a->symbol != b->symbol) return unbounded();
    // Signed: the same as unsigned where both are below 2^31.
    if (in.hasModifier(".s32") && (mostOf(a->hi) > 0x7FFFFFFF || mostOf(b->hi) > 0x7FFFFFFF || !a->symbol.empty()))
      return unbounded();
    // min(a, b) <= a and <= b: either upper bound holds, the one of the smaller largest value is
    // kept; max likewise with the lower bounds.
    if (op == "min")
      return Bound{lower(a->lo, b->lo), mostOf(a->hi) <= mostOf(b->hi) ? a->hi : b->hi, a->symbol, false};
    return Bound{leastOf(a->lo) >= leastOf(b->lo) ? a->lo : b->lo, upper(a->hi, b->hi), a->symbol, false};
  }
  return unbounded();
}

std::optional<LaunchCondition> LaunchBounds::inBoundsWhen(const AccessSite& a, const std::string& variable) const {
  const SymbolInfo* v = sharedVariable(symbols_, variable);
  if (!v || a.access.size == 0 || !a.access.uncheckable.empty() || a.reachedByUndefined) return std::nullopt;
  Bound address;
  if (!a.addressSymbol.empty()) {
    if (a.addressSymbol != variable) return std::nullopt;
    address = Bound{constantAffine(0), constantAffine(0), variable, false};
  } else {
    if (a.addressRegister.empty() || !pa_.registers().is32Bit(a.addressRegister)) return std::nullopt;
    address = of(a.addressRegister);
  }
  if (address.unbounded || address.symbol != variable) return std::nullopt;
  // The access's own constant ([%r+offset]) and size.
  const int64_t offset = std::get<Instruction>(f_.body[a.statement]).operands[a.access.addressOperand].value;
  LaunchAffine first = plus(address.lo, constantAffine(offset));
  LaunchAffine end = plus(address.hi, constantAffine(offset + static_cast<int64_t>(a.access.size)));
  LaunchAffine size = constantAffine(static_cast<int64_t>(v->size));
  if (v->dynamicShared) {
    size = constantAffine(0);
    size.k[kDynamicSmemSize] = 1;
  }
  // first >= 0 and size - end >= 0: each always true (dropped), never true (no proof), or tested.
  LaunchCondition condition;
  for (const LaunchAffine& c : {first, minus(size, end)}) {
    if (!small(c) || mostOf(c) < 0) return std::nullopt;
    if (leastOf(c) < 0) condition.insert(c);
  }
  return condition;
}

}  // namespace cucatch::analysis
