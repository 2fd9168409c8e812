#include "analysis/SharedParts.h"

#include <algorithm>
#include <set>

#include "ptx/InstrInfo.h"

namespace cucatch::analysis {

using namespace cucatch::ptx;

namespace {

constexpr int kMaxDepth = 16;

// Special registers with one value for the whole block (or grid): a part may start at them.
bool isBlockUniform(const Operand& o) {
  static const std::set<std::string> kUniform = {"%ntid",       "%nctaid",           "%ctaid",
                                                 "%nclusterid", "%clusterid",        "%cluster_nctaid",
                                                 "%cluster_ctaid", "%dynamic_smem_size", "%total_smem_size",
                                                 "%aggr_smem_size", "%nsmid",        "%gridid"};
  return kUniform.count(o.text) != 0;
}

// Pure arithmetic whose result depends on its operands only (no memory, no predicate, no
// thread state): a definition the prologue may recompute.
bool isPure(const Instruction& in) {
  static const std::set<std::string> kPure = {"mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or",
                                              "xor", "not", "neg", "cvt", "min", "max", "div", "rem", "abs"};
  return kPure.count(in.opcode) != 0;
}

void addTerms(LinearForm& to, const LinearForm& from, int64_t scale) {
  to.constant = static_cast<int64_t>(static_cast<uint64_t>(to.constant) + static_cast<uint64_t>(from.constant) * static_cast<uint64_t>(scale));
  for (const auto& [r, c] : from.terms) {
    int64_t& t = to.terms[r];
    t = static_cast<int64_t>(static_cast<uint64_t>(t) + static_cast<uint64_t>(c) * static_cast<uint64_t>(scale));
    if (t == 0) to.terms.erase(r);
  }
}

}  // namespace

DynamicSharedParts::DynamicSharedParts(const Function& f, const CFG& cfg, const PointerAnalysis& pa,
                                       const SymbolTable& symbols)
    : f_(f), cfg_(cfg), pa_(pa) {
  // Only a kernel's parameters are the same in every thread.
  if (!f.isEntry) return;
  std::string symbol;
  std::vector<std::map<std::string, int64_t>> starts;
  std::unordered_map<size_t, size_t> partOf;
  for (const AccessSite& a : pa.accesses()) {
    if (a.access.space != Space::Shared || a.addressRegister.empty() || !pa.registers().is32Bit(a.addressRegister))
      continue;
    std::string s = pa.symbolOfEveryBase(a);
    const SymbolInfo* v = sharedVariable(symbols, s);
    if (!v || !v->dynamicShared) continue;
    LinearForm form = formOf(a.addressRegister, a.statement);
    // (Through a register that is not followed, such as a pointer incremented in a loop: the
    // access is checked against the whole region.)
    if (form.symbol != s) continue;
    if (symbol.empty()) symbol = s;
    if (s != symbol) return;  // two dynamic arrays: nvcc never declares them so, leave it
    std::map<std::string, int64_t> start;
    for (const auto& [r, c] : form.terms)
      if (isUniform(r)) start[r] = c;
    size_t part = 0;
    if (!start.empty()) {
      auto it = std::find(starts.begin(), starts.end(), start);
      part = 1 + static_cast<size_t>(it - starts.begin());
      if (it == starts.end()) starts.push_back(std::move(start));
    }
    partOf[a.statement] = part;
  }
  if (starts.empty() || starts.size() > kMaxParts) return;
  symbol_ = symbol;
  starts_ = std::move(starts);
  partOfStatement_ = std::move(partOf);
  std::unordered_map<std::string, bool> seen;
  for (const auto& start : starts_)
    for (const auto& [r, c] : start) collectDefinitions(r, entryDefinitions_, seen);
}

std::optional<size_t> DynamicSharedParts::partOf(size_t statement) const {
  auto it = partOfStatement_.find(statement);
  if (it == partOfStatement_.end()) return std::nullopt;
  return it->second;
}

bool DynamicSharedParts::defines(size_t statement, const std::string& reg) const {
  for (size_t d : pa_.defsAt(statement))
    if (pa_.defs()[d].reg == reg) return true;
  return false;
}

std::optional<size_t> DynamicSharedParts::definitionAt(const std::string& reg, size_t at) const {
  if (auto only = pa_.onlyDefinition(reg)) return only;
  // Backwards from `at` along every path: the first definition on each. One in all, unguarded,
  // and no path from the entry without one.
  std::optional<size_t> found;
  bool ambiguous = false;
  auto take = [&](size_t s) {
    if (std::get<Instruction>(f_.body[s]).guard || (found && *found != s)) ambiguous = true;
    found = s;
  };
  std::vector<bool> visited(cfg_.blocks().size(), false);
  std::vector<size_t> work;
  size_t b = cfg_.blockOf(at);
  bool hit = false;
  for (size_t s = at; s-- > cfg_.blocks()[b].first;)
    if (defines(s, reg)) {
      take(s);
      hit = true;
      break;
    }
  if (!hit) {
    if (cfg_.blocks()[b].predecessors.empty()) return std::nullopt;
    work = cfg_.blocks()[b].predecessors;
  }
  while (!work.empty() && !ambiguous) {
    size_t p = work.back();
    work.pop_back();
    if (visited[p]) continue;
    visited[p] = true;
    const BasicBlock& block = cfg_.blocks()[p];
    bool defined = false;
    for (size_t s = block.last; s-- > block.first;)
      if (defines(s, reg)) {
        take(s);
        defined = true;
        break;
      }
    if (defined) continue;
    if (block.predecessors.empty()) return std::nullopt;  // from the entry without a definition
    work.insert(work.end(), block.predecessors.begin(), block.predecessors.end());
  }
  if (ambiguous) return std::nullopt;
  return found;
}

LinearForm DynamicSharedParts::formOf(const std::string& reg, size_t at) const { return formOf(reg, at, 0); }

std::optional<LinearForm> DynamicSharedParts::operandForm(const Operand& o, size_t at, int depth) const {
  if (o.kind == OperandKind::Integer) return LinearForm{"", o.value, {}};
  if (o.kind == OperandKind::Name && pa_.registers().is32Bit(o.text)) return formOf(o.text, at, depth + 1);
  return std::nullopt;
}

LinearForm DynamicSharedParts::formOf(const std::string& reg, size_t at, int depth) const {
  LinearForm itself{"", 0, {{reg, 1}}};
  if (depth > kMaxDepth) return itself;
  std::optional<size_t> s = definitionAt(reg, at);
  if (!s) return itself;
  const Instruction& in = std::get<Instruction>(f_.body[*s]);
  const auto& ops = in.operands;
  const std::string& op = in.opcode;
  bool is32 = in.hasModifier(".u32") || in.hasModifier(".s32") || in.hasModifier(".b32");
  if (op == "mov" && ops.size() == 2 && ops[1].kind == OperandKind::Name && !ops[1].text.empty() &&
      ops[1].text[0] != '%' && !pa_.registers().isRegister(ops[1].text))
    return LinearForm{ops[1].text, 0, {}};  // a variable's symbol
  if (op == "mov" && ops.size() == 2) {
    auto a = operandForm(ops[1], *s, depth);
    return a ? *a : itself;
  }
  if ((op == "add" || op == "sub") && is32 && ops.size() == 3 && !in.hasModifier(".sat") && !in.hasModifier(".cc")) {
    auto a = operandForm(ops[1], *s, depth), b = operandForm(ops[2], *s, depth);
    if (!a || !b) return itself;
    // At most one symbol, with coefficient 1: an address.
    if (!a->symbol.empty() && !b->symbol.empty()) return itself;
    if (op == "sub" && !b->symbol.empty()) return itself;
    LinearForm r = *a;
    if (r.symbol.empty()) r.symbol = b->symbol;
    addTerms(r, *b, op == "sub" ? -1 : 1);
    return r;
  }
  // Scaled by a constant: shl, mul.lo, mad.lo (plus a third operand).
  int64_t scale = 0;
  const Operand* scaled = nullptr;
  if (op == "shl" && in.hasModifier(".b32") && ops.size() == 3 && ops[2].kind == OperandKind::Integer &&
      ops[2].value >= 0 && ops[2].value < 32) {
    scale = int64_t{1} << ops[2].value;
    scaled = &ops[1];
  } else if ((op == "mul" || op == "mad") && in.hasModifier(".lo") && is32 && ops.size() >= 3) {
    if (ops[2].kind == OperandKind::Integer) {
      scale = ops[2].value;
      scaled = &ops[1];
    } else if (ops[1].kind == OperandKind::Integer) {
      scale = ops[1].value;
      scaled = &ops[2];
    }
  }
  if (!scaled || (op == "mad" && ops.size() != 4) || (op != "mad" && ops.size() != 3)) return itself;
  auto a = operandForm(*scaled, *s, depth);
  if (!a || !a->symbol.empty()) return itself;
  LinearForm r;
  addTerms(r, *a, scale);
  if (op == "mad") {
    auto c = operandForm(ops[3], *s, depth);
    if (!c) return itself;
    r.symbol = c->symbol;
    addTerms(r, *c, 1);
  }
  return r;
}

bool DynamicSharedParts::isUniform(const std::string& reg) const { return isUniform(reg, 0); }

bool DynamicSharedParts::isKernelParameter(const std::string& name) const {
  if (!f_.params) return false;
  for (const VariableDecl& p : f_.params->params)
    for (const Declarator& d : p.declarators)
      if (d.name == name) return true;
  return false;
}

bool DynamicSharedParts::isUniform(const std::string& reg, int depth) const {
  if (depth > kMaxDepth || !f_.isEntry) return false;
  std::optional<size_t> s = pa_.onlyDefinition(reg);
  if (!s) return false;
  const Instruction& in = std::get<Instruction>(f_.body[*s]);
  if (in.operands.empty() || in.operands[0].kind != OperandKind::Name) return false;
  // A kernel parameter: `ld.param.u32 %r, [k_param_2]` (or at an offset into it); not the
  // return value of a call (`ld.param` of a .param the body declares).
  if (in.opcode == "ld" && in.hasModifier(".param") && in.operands.size() == 2 &&
      in.operands[1].kind == OperandKind::Address && in.operands[1].extra.empty() && !in.hasModifier(".v2") &&
      !in.hasModifier(".v4"))
    return isKernelParameter(in.operands[1].text);
  if (!isPure(in)) return false;
  for (size_t k = 1; k < in.operands.size(); ++k) {
    const Operand& o = in.operands[k];
    if (o.kind == OperandKind::Integer) continue;
    if (o.kind != OperandKind::Name || o.negated) return false;
    if (pa_.registers().isRegister(o.text)) {
      if (!isUniform(o.text, depth + 1)) return false;
    } else if (!isBlockUniform(o)) {
      return false;  // a symbol, %tid, %laneid, %clock, ...
    }
  }
  return true;
}

void DynamicSharedParts::collectDefinitions(const std::string& reg, std::vector<size_t>& out,
                                            std::unordered_map<std::string, bool>& seen) const {
  if (seen[reg]) return;
  seen[reg] = true;
  size_t s = *pa_.onlyDefinition(reg);
  const Instruction& in = std::get<Instruction>(f_.body[s]);
  for (size_t k = 1; k < in.operands.size(); ++k)
    if (in.operands[k].kind == OperandKind::Name && pa_.registers().isRegister(in.operands[k].text))
      collectDefinitions(in.operands[k].text, out, seen);
  out.push_back(s);
}

}  // namespace cucatch::analysis
