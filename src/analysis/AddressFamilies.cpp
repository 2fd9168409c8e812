#include "analysis/AddressFamilies.h"

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ptx/InstrInfo.h"
#include "ptx/Printer.h"

namespace cucatch::analysis {

using namespace ptx;

namespace {

constexpr size_t kBeforeBlock = SIZE_MAX;
// Expressions are trees (a value used twice is expanded twice): at most this many nodes each,
// the rest left as leaves.
constexpr int kNodeBudget = 64;

// An address expression: a tree of the pure integer operations of one basic block that make it.
struct Expr {
  enum class Kind { Leaf, Const, Op } kind = Kind::Leaf;
  std::string reg;           // Leaf: the register or special register; Op: the register it defines
  size_t def = kBeforeBlock;  // Leaf: the statement defining it (kBeforeBlock: none in the block before the use); Op: its statement
  int64_t value = 0;         // Const
  const Instruction* in = nullptr;  // Op
  std::vector<Expr> operands;       // Op: its sources, in order
};

bool integerType(std::string_view m) {
  static const std::set<std::string_view> types = {".s8",  ".s16", ".s32", ".s64", ".u8",  ".u16",
                                                   ".u32", ".u64", ".b8",  ".b16", ".b32", ".b64"};
  return types.count(m) != 0;
}

// Pure integer operations whose one destination is operand 0: what an expression may be made of.
bool pureInteger(const Instruction& in) {
  static const std::set<std::string_view> ops = {"add", "sub", "mul", "mad", "shl", "shr", "min", "max",
                                                 "cvt", "and", "or",  "xor", "not", "neg", "mov"};
  if (!ops.count(in.opcode) || in.operands.size() < 2 || in.operands[0].kind != OperandKind::Name) return false;
  bool typed = false;
  for (const auto& m : in.modifiers) {
    if (integerType(m)) typed = true;
    else if (m != ".lo" && m != ".wide" && m != ".hi") return false;  // floating point, saturation, rounding
  }
  if (!typed) return false;
  for (size_t i = 1; i < in.operands.size(); ++i)
    if (in.operands[i].kind != OperandKind::Name && in.operands[i].kind != OperandKind::Integer) return false;
  return true;
}

bool definesRegister(const Instruction& in, const std::string& reg) {
  bool defines = false;
  forEachDefinedRegister(in, [&](const std::string& r) { defines |= r == reg; });
  return defines;
}

// Whether a statement in [from, to) of `f` writes register `reg`.
bool writes(const Function& f, const std::string& reg, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (const auto* in = std::get_if<Instruction>(&f.body[i]); in && definesRegister(*in, reg)) return true;
  return false;
}

class Builder {
 public:
  // Walks back from a use to `first`: the first statement of the use's block, where the
  // definition read is the latest before the use; or, with `cfg`, the start of a region that
  // holds the use (AddressFamily::Region: entered at `first`, no backward branch), where a
  // definition in another block than the use's is read only where it is its register's one
  // definition in the region before the use and its block dominates the use's: it ran, and
  // nothing since has written the register. A register written in the region otherwise is a
  // value of the use alone (it matches nothing else, and cannot be made again).
  Builder(const Function& f, const RegisterFile& registers, size_t first, const CFG* cfg = nullptr)
      : f_(f), registers_(registers), blockFirst_(first), cfg_(cfg) {}

  // The expression of register `reg` as statement `use` reads it.
  Expr ofRegister(const std::string& reg, size_t use) {
    budget_ = kNodeBudget;
    return build(reg, use);
  }

 private:
  Expr build(const std::string& reg, size_t use) {
    Expr e;
    e.reg = reg;
    for (size_t i = use; i-- > blockFirst_;) {
      const auto* in = std::get_if<Instruction>(&f_.body[i]);
      if (!in || !definesRegister(*in, reg)) continue;
      e.def = i;
      if (cfg_ && cfg_->blockOf(i) != cfg_->blockOf(use) &&
          (!cfg_->dominates(cfg_->blockOf(i), cfg_->blockOf(use)) || writes(f_, reg, blockFirst_, i))) {
        e.def = use;
        return e;
      }
      if (in->guard || !pureInteger(*in) || in->operands[0].text != reg || --budget_ < 0) return e;
      e.kind = Expr::Kind::Op;
      e.in = in;
      unsigned width = operandBits(*in);
      for (size_t k = 1; k < in->operands.size(); ++k) e.operands.push_back(operand(in->operands[k], i, width));
      return e;
    }
    return e;  // defined before the block
  }

  // `width`: the bits of the operation's source operands, to which a constant is sign-extended
  // (`add.u32 %r, %x, 4294967295` adds -1).
  Expr operand(const Operand& o, size_t use, unsigned width) {
    if (o.kind == OperandKind::Integer) {
      Expr c;
      c.kind = Expr::Kind::Const;
      c.value = width && width < 64 ? signExtend(o.value, width) : o.value;
      return c;
    }
    if (o.extra.empty() && registers_.isRegister(o.text)) return build(o.text, use);
    Expr leaf;
    leaf.reg = printOperand(o);
    // A special register that changes as the thread runs (%clock, %globaltimer, %smid) is a value
    // of this statement alone: it matches nothing else, and cannot be read again elsewhere.
    // Fixed ones (%tid.x), and symbols (their addresses), hold one value throughout.
    if (!o.text.empty() && o.text[0] == '%' && !fixedSpecialRegister(o.text)) leaf.def = use;
    return leaf;
  }

  static int64_t signExtend(int64_t v, unsigned bits) {
    uint64_t m = uint64_t(1) << (bits - 1);
    uint64_t x = uint64_t(v) & ((m << 1) - 1);
    return int64_t((x ^ m) - m);
  }

  static bool fixedSpecialRegister(std::string_view name) {
    static const std::set<std::string_view> fixed = {
        "%tid",          "%ntid",          "%laneid",         "%ctaid",          "%nctaid",
        "%nwarpid",      "%nsmid",         "%gridid",         "%clusterid",      "%nclusterid",
        "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
        "%lanemask_eq",  "%lanemask_le",   "%lanemask_lt",    "%lanemask_ge",    "%lanemask_gt",
        "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size"};
    return fixed.count(name) != 0;
  }

  // The width of an operation's source operands: cvt's source type, else its (last) type.
  static unsigned operandBits(const Instruction& in) {
    std::string_view type = in.opcode == "cvt" && in.modifiers.size() == 2 ? in.modifiers[1] : in.modifiers.back();
    unsigned bits = 0;
    for (char c : type.substr(2)) bits = bits * 10 + unsigned(c - '0');
    return bits;
  }

  const Function& f_;
  const RegisterFile& registers_;
  size_t blockFirst_;
  const CFG* cfg_;
  int budget_ = 0;
};

bool same(const Expr& a, const Expr& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Expr::Kind::Const:
      return a.value == b.value;
    case Expr::Kind::Leaf:
      return a.reg == b.reg && a.def == b.def;
    case Expr::Kind::Op:
      if (a.def == b.def) return true;  // one statement's value
      if (a.in->fullOpcode() != b.in->fullOpcode() || a.operands.size() != b.operands.size()) return false;
      for (size_t i = 0; i < a.operands.size(); ++i)
        if (!same(a.operands[i], b.operands[i])) return false;
      return true;
  }
  return false;
}

// An expression as base + constant: add(X, c) is X + c, a constant c is c, anything else itself + 0.
struct OffsetForm {
  const Expr* base = nullptr;  // null for a constant
  int64_t value = 0;
};
OffsetForm offsetForm(const Expr& e) {
  if (e.kind == Expr::Kind::Const) return {nullptr, e.value};
  if (e.kind == Expr::Kind::Op && e.in->opcode == "add" && e.operands.size() == 2 &&
      e.operands[1].kind == Expr::Kind::Const)
    return {&e.operands[0], e.operands[1].value};
  return {&e, 0};
}

// One step on the way from the root down to where two expressions differ: the operation, and
// which of its operands the way takes.
struct Step {
  const Expr* node;
  size_t operand;
  bool operator==(const Step&) const = default;
};
struct Difference {
  std::vector<Step> path;  // from the root (of the first expression)
  int64_t a = 0, b = 0;    // the two constants there
};

// Appends where `a` and `b` differ in a constant (as base + constant) to `out`; false where they
// differ otherwise.
bool differences(const Expr& a, const Expr& b, std::vector<Step>& path, std::vector<Difference>& out) {
  if (same(a, b)) return true;
  OffsetForm x = offsetForm(a), y = offsetForm(b);
  if ((!x.base && !y.base) || (x.base && y.base && same(*x.base, *y.base))) {
    out.push_back({path, x.value, y.value});
    return true;
  }
  if (a.kind != Expr::Kind::Op || b.kind != Expr::Kind::Op || a.in->fullOpcode() != b.in->fullOpcode() ||
      a.operands.size() != b.operands.size())
    return false;
  for (size_t i = 0; i < a.operands.size(); ++i) {
    path.push_back({&a, i});
    bool ok = differences(a.operands[i], b.operands[i], path, out);
    path.pop_back();
    if (!ok) return false;
  }
  return true;
}

bool nonNegativeConstant(const Expr& e) { return e.kind == Expr::Kind::Const && e.value >= 0; }

// How an address moves as the constant at the end of a path goes up: never down, or one way the
// constant does not choose (a product by a value the same in every member, of either sign).
enum class Direction { NonDecreasing, Monotone };

// Whether step `{node, operand}` lies on one of `paths`.
bool onAnyPath(const Expr* node, size_t operand, const std::vector<const std::vector<Step>*>& paths) {
  for (const auto* p : paths)
    for (const Step& s : *p)
      if (s.node == node && s.operand == operand) return true;
  return false;
}

// How the expression at the end of `path` moves with the value where it ends, taken over the
// integers, whatever the values at the ends of `others` (the family's other constants) are: each
// operation on the way up is monotone in the operand the way takes, in a direction no other
// constant decides, and comparisons (min, max) and widenings agree on signedness. None where some
// operation is not.
// Whether `e` is a 64-bit value widened from at most 32 bits (a cvt from a 32-bit type, or a
// register every definition of which in `f` is one), or a constant that fits in 32 bits: the
// product of two such values is exact in 64 bits.
bool widenedFrom32(const Function& f, const Expr& e) {
  auto isWidening = [](const Instruction& in) {
    if (in.opcode != "cvt" || in.guard || in.modifiers.size() != 2) return false;
    const std::string& from = in.modifiers[1];
    return from.size() > 2 && (from[1] == 's' || from[1] == 'u') && std::stoi(from.substr(2)) <= 32;
  };
  switch (e.kind) {
    case Expr::Kind::Const:
      return e.value >= INT32_MIN && e.value <= INT32_MAX;
    case Expr::Kind::Op:
      return isWidening(*e.in);
    case Expr::Kind::Leaf: {
      bool any = false, all = true;
      for (const Statement& s : f.body)
        if (const auto* in = std::get_if<Instruction>(&s); in && definesRegister(*in, e.reg)) {
          any = true;
          all = all && isWidening(*in);
        }
      return any && all;
    }
  }
  return false;
}

std::optional<Direction> direction(const Function& f, const std::vector<Step>& path,
                                   const std::vector<const std::vector<Step>*>& others) {
  enum class Sign { Any, Signed, Unsigned } sign = Sign::Any;
  Direction way = Direction::NonDecreasing;
  auto signOf = [](std::string_view type) {
    return type[1] == 's' ? Sign::Signed : type[1] == 'u' ? Sign::Unsigned : Sign::Any;
  };
  auto agree = [&](Sign s) {
    if (s == Sign::Any) return true;
    if (sign != Sign::Any && sign != s) return false;
    sign = s;
    return true;
  };
  for (auto step = path.rbegin(); step != path.rend(); ++step) {
    const Instruction& in = *step->node->in;
    const auto& operands = step->node->operands;
    size_t k = step->operand;
    const std::string& type = in.modifiers.back();
    if (in.opcode == "add" || in.opcode == "mov") continue;
    if (in.opcode == "sub") {
      if (k != 0) return std::nullopt;
    } else if (in.opcode == "min" || in.opcode == "max") {
      if (!agree(signOf(type))) return std::nullopt;
    } else if (in.opcode == "cvt") {
      // cvt.<to>.<from>: widening only, from the signedness below.
      if (in.modifiers.size() != 2) return std::nullopt;
      const std::string &to = in.modifiers[0], &from = in.modifiers[1];
      if (std::stoi(to.substr(2)) <= std::stoi(from.substr(2)) || !agree(signOf(from))) return std::nullopt;
      // A sign extension keeps the order only where what follows compares signed (-1 becomes
      // 2^64 - 1 unsigned); a zero extension's values are the same in both orders.
      sign = signOf(from) == Sign::Signed ? Sign::Signed : Sign::Any;
    } else if (in.opcode == "shl") {
      if (k != 0 || !nonNegativeConstant(operands[1])) return std::nullopt;
    } else if (in.opcode == "mul" || in.opcode == "mad") {
      if (k > 2 || in.hasModifier(".hi")) return std::nullopt;
      // A product that cannot wrap: .wide, or the low half of one of two values widened from 32
      // bits (`size_t(y + r) * cols` with int y, r and cols).
      bool exact = in.hasModifier(".wide") ||
                   (in.hasModifier(".lo") && widenedFrom32(f, operands[0]) && widenedFrom32(f, operands[1]));
      if (k < 2 && !nonNegativeConstant(operands[1 - k])) {
        // A product by another value: monotone, by its sign, where that value is the same in
        // every member (on no other constant's way) and the product cannot wrap.
        if (!exact || onAnyPath(step->node, 1 - k, others)) return std::nullopt;
        way = Direction::Monotone;
      }
      if (exact && k < 2) {  // (a mad's addend is 64 bits already)
        if (!agree(signOf(type))) return std::nullopt;
        sign = signOf(type) == Sign::Signed ? Sign::Signed : Sign::Any;
      }
    } else {
      return std::nullopt;
    }
  }
  return way;
}

// The statements of `e`'s operations at or after `from` (ascending), which must run again at
// `from` to have its value there; none where some value it needs is made at or after `from` by
// something that cannot run again.
std::optional<std::vector<size_t>> recomputed(const Expr& e, size_t from) {
  std::set<size_t> out;
  bool ok = true;
  auto walk = [&](auto&& self, const Expr& x) -> void {
    if (x.kind == Expr::Kind::Const) return;
    if (x.def == kBeforeBlock || x.def < from) return;  // (its register holds it at `from`)
    if (x.kind == Expr::Kind::Leaf) {
      ok = false;
      return;
    }
    out.insert(x.def);
    for (const Expr& o : x.operands) self(self, o);
  };
  walk(walk, e);
  if (!ok) return std::nullopt;
  return std::vector<size_t>(out.begin(), out.end());
}

// The family of run[r] and the untaken accesses after it that differ from it in at most
// `dimensions` constants (each on its own way through the expression), if it has three members
// and its extremes are members. `exprs`: the accesses' addresses. The extremes' addresses are
// made at the first member, or where given at `regionFrom` (a family across guards).
std::optional<AddressFamily> familyFrom(const Function& f, const std::vector<const AccessSite*>& run,
                                        const std::vector<Expr>& exprs, const std::vector<bool>& taken, size_t r,
                                        size_t dimensions, std::optional<size_t> regionFrom) {
  auto offset = [&](const AccessSite* a) {
    return std::get<Instruction>(f.body[a->statement]).operands[a->access.addressOperand].value;
  };
  const AccessSite& ref = *run[r];
  struct Dimension {
    std::vector<Step> path;
    int64_t reference = 0;  // the reference's constant there
  };
  std::vector<Dimension> dims;
  std::vector<size_t> members{r};
  std::vector<std::vector<std::optional<int64_t>>> constants{{}};  // per member, per dimension
  for (size_t m = r + 1; m < run.size(); ++m) {
    const AccessSite& a = *run[m];
    if (taken[m] || a.access.size != ref.access.size || offset(&a) != offset(&ref) ||
        a.reachingDefs != ref.reachingDefs || a.reachingDefs.empty())
      continue;
    std::vector<Step> path;
    std::vector<Difference> diffs;
    if (!differences(exprs[r], exprs[m], path, diffs) || diffs.size() > dimensions) continue;
    std::vector<Dimension> grown = dims;
    std::vector<std::optional<int64_t>> values(dimensions);
    bool fits = true;
    for (const Difference& d : diffs) {
      auto at = std::find_if(grown.begin(), grown.end(), [&](const Dimension& x) { return x.path == d.path; });
      if (at == grown.end()) {
        // A new constant's way must be monotone already (the ways are checked together below).
        std::vector<const std::vector<Step>*> others;
        for (const Dimension& x : grown) others.push_back(&x.path);
        if (grown.size() == dimensions || !direction(f, d.path, others)) {
          fits = false;
          break;
        }
        grown.push_back({d.path, d.a});
        at = grown.end() - 1;
      }
      values[at - grown.begin()] = d.b;
    }
    if (!fits) continue;
    dims = std::move(grown);
    members.push_back(m);
    constants.push_back(std::move(values));
  }
  if (dims.empty() || members.size() < 3) return std::nullopt;
  // Every dimension monotone, whatever the others' constants.
  std::vector<Direction> ways;
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<const std::vector<Step>*> others;
    for (size_t e = 0; e < dims.size(); ++e)
      if (e != d) others.push_back(&dims[e].path);
    std::optional<Direction> way = direction(f, dims[d].path, others);
    if (!way) return std::nullopt;
    ways.push_back(*way);
  }
  // Each member's constants (the reference's where it does not differ), their extremes, and
  // the members at the corners the checks need: lowest and highest in every dimension where
  // each raises the address, else every combination of the two.
  auto valueOf = [&](size_t i, size_t d) { return constants[i].size() > d && constants[i][d] ? *constants[i][d] : dims[d].reference; };
  std::vector<int64_t> least(dims.size()), most(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    least[d] = most[d] = valueOf(0, d);
    for (size_t i = 1; i < members.size(); ++i) {
      least[d] = std::min(least[d], valueOf(i, d));
      most[d] = std::max(most[d], valueOf(i, d));
    }
  }
  bool allRise = std::all_of(ways.begin(), ways.end(), [](Direction w) { return w == Direction::NonDecreasing; });
  std::vector<std::vector<int64_t>> corners;
  if (dims.size() == 1 || allRise) {
    corners = {least, most};
  } else {
    for (int64_t a : {least[0], most[0]})
      for (int64_t b : {least[1], most[1]}) corners.push_back({a, b});
  }
  AddressFamily family;
  size_t from = regionFrom ? *regionFrom : run[r]->statement;
  for (const auto& corner : corners) {
    std::optional<size_t> at;
    for (size_t i = 0; i < members.size() && !at; ++i) {
      bool match = true;
      for (size_t d = 0; d < dims.size(); ++d) match = match && valueOf(i, d) == corner[d];
      if (match) at = i;
    }
    if (!at) return std::nullopt;  // a corner no member accesses
    const AccessSite* access = run[members[*at]];
    if (std::any_of(family.extremes.begin(), family.extremes.end(),
                    [&](const AddressFamily::Extreme& e) { return e.access == access; }))
      continue;
    auto again = recomputed(exprs[members[*at]], from);
    if (!again) return std::nullopt;
    // In one block, the first member's own address needs nothing again.
    family.extremes.push_back({access, *at == 0 && !regionFrom ? std::vector<size_t>{} : std::move(*again)});
  }
  for (size_t m : members) family.members.push_back(run[m]);
  return family;
}


// What a region (AddressFamily::Region) may not hold: what may not come back or be called (a
// call may free the memory), what branches elsewhere than to a label, and what a warp or a block
// must run together (the instrumentation runs one of two copies of the region, chosen by each
// thread: a barrier or a warp-wide operation met in both would be met in two places).
bool keepsOutOfRegion(const Instruction& in) {
  static const std::set<std::string_view> ops = {
      "call",     "ret",     "exit",    "trap",       "brkpt",     "brx",       "bar",         "barrier",
      "shfl",     "vote",    "match",   "redux",      "activemask", "elect",    "mma",         "wmma",
      "wgmma",    "ldmatrix", "stmatrix", "tcgen05",  "setmaxnreg", "alloca",   "stacksave",   "stackrestore",
      "griddepcontrol", "mbarrier", "cp",  "multimem", "tensormap", "movmatrix", "clusterlaunchcontrol"};
  if (ops.count(in.opcode) || mayNotComeBack(in)) return true;
  return in.hasModifier(".aligned") || in.hasModifier(".sync");
}

// The region that holds `members` (in statement order): it starts at the branch that ends the
// block dominating them all, or at the first member where that block holds one, and ends where
// no branch from it goes further. None where it is not one (above), holds more than
// kMaxRegionStatements statements, is entered elsewhere than at its start, or starts inside a
// nested scope (`nested`: per statement).
std::optional<AddressFamily::Region> regionOf(const Function& f, const CFG& cfg,
                                              const std::vector<const AccessSite*>& members,
                                              const std::unordered_map<std::string, size_t>& labels,
                                              const std::unordered_map<std::string, std::vector<size_t>>& referencesTo,
                                              const std::vector<bool>& nested) {
  const auto& idom = cfg.idom();
  size_t d = cfg.blockOf(members.front()->statement);
  for (const AccessSite* m : members)
    while (!cfg.dominates(d, cfg.blockOf(m->statement))) {
      if (idom[d] == d || idom[d] == SIZE_MAX) return std::nullopt;
      d = idom[d];
    }
  const BasicBlock& block = cfg.blocks()[d];
  size_t from = SIZE_MAX;
  for (const AccessSite* m : members)
    if (cfg.blockOf(m->statement) == d) from = std::min(from, m->statement);
  for (size_t i = block.last; i-- > block.first;) {
    const auto* in = std::get_if<Instruction>(&f.body[i]);
    if (!in) continue;
    if (in->opcode == "bra") from = std::min(from, i);
    break;
  }
  // At the function's own scope: the checked copy goes after the body, outside any nested
  // scope, where the scope's registers and labels are not seen (a review's find).
  if (from == SIZE_MAX || from > members.front()->statement || nested[from]) return std::nullopt;
  size_t to = members.back()->statement + 1;
  for (size_t i = from; i < to; ++i) {
    if (to - from > kMaxRegionStatements) return std::nullopt;
    const Statement& st = f.body[i];
    if (std::holds_alternative<ScopeBrace>(st) || std::holds_alternative<VariableDecl>(st) ||
        std::holds_alternative<TargetList>(st))
      return std::nullopt;
    const auto* in = std::get_if<Instruction>(&st);
    if (!in) continue;
    if (keepsOutOfRegion(*in)) return std::nullopt;
    if (in->opcode != "bra") continue;
    if (in->operands.empty() || in->operands[0].kind != OperandKind::Name) return std::nullopt;
    auto target = labels.find(in->operands[0].text);
    if (target == labels.end() || target->second <= i) return std::nullopt;  // (backward: a loop)
    to = std::max(to, target->second);
  }
  if (to >= f.body.size()) return std::nullopt;  // (its end is a statement: the exit)
  // Entered only at its start: no label inside is named from outside.
  for (size_t i = from + 1; i < to; ++i)
    if (const auto* l = std::get_if<Label>(&f.body[i]))
      if (auto refs = referencesTo.find(l->name); refs != referencesTo.end())
        for (size_t r : refs->second)
          if (r < from || r >= to) return std::nullopt;
  return AddressFamily::Region{from, to};
}

}  // namespace

std::vector<AddressFamily> addressFamilies(const Function& f, const CFG& cfg, const RegisterFile& registers,
                                           const std::vector<const AccessSite*>& candidates) {
  std::vector<AddressFamily> families;
  // Statements inside a nested scope (inline assembly's `{ .reg ...; }`): their registers may
  // be the scope's own, which a statement made again outside it would not see.
  std::vector<bool> nested(f.body.size(), false);
  int depth = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (const auto* b = std::get_if<ScopeBrace>(&f.body[i])) depth += b->open ? 1 : -1;
    nested[i] = depth > 0;
  }
  // Runs of candidates that each run if the first does: one block, nothing between that may
  // not come back, unguarded, at the function's own scope with no scope opened between them.
  std::vector<std::vector<const AccessSite*>> runs;
  size_t lastStatement = 0;
  for (const AccessSite* a : candidates) {
    const auto& in = std::get<Instruction>(f.body[a->statement]);
    if (a->addressRegister.empty() || a->access.lanes || a->access.size == 0 || in.guard || nested[a->statement])
      continue;
    bool joins = !runs.empty() && cfg.blockOf(lastStatement) == cfg.blockOf(a->statement);
    for (size_t i = lastStatement; joins && i < a->statement; ++i) {
      if (const auto* s = std::get_if<Instruction>(&f.body[i]); s && mayNotComeBack(*s)) joins = false;
      if (std::holds_alternative<ScopeBrace>(f.body[i])) joins = false;
    }
    if (!joins) runs.emplace_back();
    runs.back().push_back(a);
    lastStatement = a->statement;
  }
  for (const auto& run : runs) {
    if (run.size() < 3) continue;
    Builder builder(f, registers, cfg.blocks()[cfg.blockOf(run.front()->statement)].first);
    std::vector<Expr> exprs;
    for (const AccessSite* a : run) exprs.push_back(builder.ofRegister(a->addressRegister, a->statement));
    std::vector<bool> taken(run.size(), false);
    for (size_t r = 0; r < run.size(); ++r) {
      if (taken[r]) continue;
      // A family in two constants where its corners are members, else in one.
      std::optional<AddressFamily> family = familyFrom(f, run, exprs, taken, r, 2, std::nullopt);
      if (!family) family = familyFrom(f, run, exprs, taken, r, 1, std::nullopt);
      if (!family) continue;
      for (const AccessSite* m : family->members) taken[std::find(run.begin(), run.end(), m) - run.begin()] = true;
      families.push_back(std::move(*family));
    }
  }
  return families;
}

std::vector<AddressFamily> guardedFamilies(const Function& f, const CFG& cfg, const PointerAnalysis& pa,
                                           const std::vector<const AccessSite*>& candidates) {
  std::vector<AddressFamily> families;
  std::unordered_map<std::string, size_t> labels;
  std::unordered_map<std::string, std::vector<size_t>> referencesTo;  // label -> statements naming it
  std::vector<bool> nested(f.body.size(), false);
  int depth = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (const auto* b = std::get_if<ScopeBrace>(&f.body[i])) depth += b->open ? 1 : -1;
    nested[i] = depth > 0;
  }
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (const auto* l = std::get_if<Label>(&f.body[i])) labels.emplace(l->name, i);
    if (const auto* t = std::get_if<TargetList>(&f.body[i]))
      for (const auto& target : t->targets) referencesTo[target].push_back(i);
    if (const auto* in = std::get_if<Instruction>(&f.body[i])) {
      auto visit = [&](auto&& self, const Operand& o) -> void {
        if (o.kind == OperandKind::Name) referencesTo[o.text].push_back(i);
        for (const auto& e : o.elements) self(self, e);
      };
      for (const auto& o : in->operands) visit(visit, o);
    }
  }
  // The accesses of one base definition, size and offset, in statement order. The base's
  // register must be defined once, so that its metadata where the region starts is theirs.
  auto offsetOf = [&](const AccessSite* a) {
    return std::get<Instruction>(f.body[a->statement]).operands[a->access.addressOperand].value;
  };
  std::map<std::tuple<size_t, unsigned, int64_t>, std::vector<const AccessSite*>> groups;
  for (const AccessSite* a : candidates) {
    if (a->addressRegister.empty() || a->access.lanes || a->access.size == 0 || a->access.extent ||
        a->reachingDefs.size() != 1 || a->reachedByUndefined)
      continue;
    const PointerDef& base = pa.defs()[a->reachingDefs[0]];
    if (pa.onlyDefinition(base.reg) != base.statement) continue;
    groups[{a->reachingDefs[0], a->access.size, offsetOf(a)}].push_back(a);
  }
  // Runs of `group`'s accesses (sorted here into statement order) that one region holds, each
  // the longest from its first access while `accepts(region, its last access)`, of at least
  // `least` accesses, in at least two blocks (in one: a family of one block or a coalesced
  // group, where they are one).
  struct Window {
    std::vector<const AccessSite*> accesses;
    AddressFamily::Region region;
  };
  auto windowsOf = [&](std::vector<const AccessSite*>& group, size_t least, auto&& accepts) {
    std::sort(group.begin(), group.end(),
              [](const AccessSite* a, const AccessSite* b) { return a->statement < b->statement; });
    std::vector<Window> out;
    for (size_t i = 0; i + least - 1 < group.size();) {
      size_t j = i;
      std::optional<AddressFamily::Region> region;
      for (size_t k = i + least - 1; k < group.size(); ++k) {
        std::vector<const AccessSite*> window(group.begin() + i, group.begin() + k + 1);
        auto r = regionOf(f, cfg, window, labels, referencesTo, nested);
        if (!r || !accepts(*r, *group[k])) break;
        region = r;
        j = k;
      }
      if (!region) {
        ++i;
        continue;
      }
      Window w{{group.begin() + i, group.begin() + j + 1}, *region};
      i = j + 1;
      std::set<size_t> blocks;
      for (const AccessSite* a : w.accesses) blocks.insert(cfg.blockOf(a->statement));
      if (blocks.size() >= 2) out.push_back(std::move(w));
    }
    return out;
  };
  for (auto& [key, group] : groups) {
    size_t baseStatement = pa.defs()[std::get<0>(key)].statement;
    for (Window& w : windowsOf(group, 3, [](const AddressFamily::Region&, const AccessSite&) { return true; })) {
      const std::vector<const AccessSite*>& window = w.accesses;
      const AddressFamily::Region& region = w.region;
      // The base is made before the region, on every path to it.
      size_t baseBlock = cfg.blockOf(baseStatement), fromBlock = cfg.blockOf(region.from);
      if (baseStatement >= region.from || (baseBlock != fromBlock && !cfg.dominates(baseBlock, fromBlock))) continue;
      Builder builder(f, pa.registers(), region.from, &cfg);
      std::vector<Expr> exprs;
      for (const AccessSite* a : window) exprs.push_back(builder.ofRegister(a->addressRegister, a->statement));
      std::vector<bool> taken(window.size(), false);
      for (size_t r = 0; r < window.size(); ++r) {
        if (taken[r]) continue;
        std::optional<AddressFamily> family = familyFrom(f, window, exprs, taken, r, 2, region.from);
        if (!family) family = familyFrom(f, window, exprs, taken, r, 1, region.from);
        if (!family) continue;
        for (const AccessSite* m : family->members)
          taken[std::find(window.begin(), window.end(), m) - window.begin()] = true;
        family->region = region;
        family->baseDef = std::get<0>(key);
        families.push_back(std::move(*family));
      }
    }
  }
  // Accesses through one address register at several offsets, among those in no family above.
  std::unordered_set<const AccessSite*> inFamily;
  for (const AddressFamily& fam : families) inFamily.insert(fam.members.begin(), fam.members.end());
  std::map<std::string, std::vector<const AccessSite*>> byAddress;
  for (const AccessSite* a : candidates)
    if (!inFamily.count(a) && !a->addressRegister.empty() && !a->access.lanes && a->access.size != 0 &&
        !a->access.extent && !a->reachingDefs.empty() && !a->reachedByUndefined)
      byAddress[a->addressRegister].push_back(a);
  for (auto& [reg, group] : byAddress) {
    // The register unwritten in the region up to the last access.
    auto unwritten = [&](const AddressFamily::Region& r, const AccessSite& last) {
      return !writes(f, reg, r.from, last.statement);
    };
    for (Window& w : windowsOf(group, 2, unwritten)) {
      AddressFamily fam;
      fam.members = std::move(w.accesses);
      fam.region = w.region;
      fam.oneAddress = true;
      families.push_back(std::move(fam));
    }
  }
  // Regions that overlap must be the same one (the instrumentation copies each once): where
  // they are not, the later family is left out.
  std::stable_sort(families.begin(), families.end(),
                   [](const AddressFamily& a, const AddressFamily& b) { return a.region->from < b.region->from; });
  std::vector<AddressFamily> kept;
  for (auto& fam : families) {
    bool clashes = std::any_of(kept.begin(), kept.end(), [&](const AddressFamily& k) {
      bool same = fam.region->from == k.region->from && fam.region->to == k.region->to;
      return !same && fam.region->from < k.region->to && k.region->from < fam.region->to;
    });
    if (!clashes) kept.push_back(std::move(fam));
  }
  return kept;
}

}  // namespace cucatch::analysis
