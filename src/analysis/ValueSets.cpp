#include "analysis/ValueSets.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ptx/InstrInfo.h"

namespace cucatch::analysis {

using namespace cucatch::ptx;

namespace {

bool is32Bit(const Instruction& in) {
  return in.modifiers.size() >= 1 &&
         (in.modifiers.back() == ".u32" || in.modifiers.back() == ".s32" || in.modifiers.back() == ".b32");
}

// A plain register or symbol operand (no negation, no component such as %tid.x's).
bool isPlainName(const Operand& o) { return o.kind == OperandKind::Name && !o.negated && o.extra.empty(); }

// An integer operation the chain from a web register to an address may go through: its
// result depends on its operands only.
bool isPureArithmetic(const Instruction& in) {
  if (in.guard || !is32Bit(in) || in.operands.size() < 3) return false;
  static const std::set<std::string> ops = {"add", "sub", "shl", "shr", "and", "or", "xor", "min", "max"};
  if (ops.count(in.opcode)) return in.modifiers.size() == 1;
  // mul.lo / mad.lo: the low half, the same in 32 bits whatever the signedness.
  if (in.opcode == "mul" || in.opcode == "mad") return in.modifiers.size() == 2 && in.modifiers[0] == ".lo";
  return false;
}

class LoopView {
 public:
  LoopView(const Function& f, const CFG& cfg, const CFG::Loop& loop) : f_(f), cfg_(cfg) {
    for (size_t b : loop.blocks) {
      blocks_.insert(b);
      for (size_t i = cfg.blocks()[b].first; i < cfg.blocks()[b].last; ++i)
        if (const auto* in = std::get_if<Instruction>(&f.body[i])) {
          if (in->opcode == "call") hasCall_ = true;
          forEachDefinedRegister(*in, [&](const std::string& r) { defs_[r].push_back(i); });
        }
    }
  }
  bool contains(size_t statement) const { return blocks_.count(cfg_.blockOf(statement)) != 0; }
  bool defines(const std::string& reg) const { return defs_.count(reg) != 0; }
  const std::vector<size_t>& defsOf(const std::string& reg) const { return defs_.at(reg); }
  bool hasCall() const { return hasCall_; }
  // Whether statement `def` runs before `use` on every path from the loop's entry to it.
  bool dominates(size_t def, size_t use) const {
    size_t a = cfg_.blockOf(def), b = cfg_.blockOf(use);
    return a == b ? def < use : cfg_.dominates(a, b);
  }

 private:
  const Function& f_;
  const CFG& cfg_;
  std::unordered_set<size_t> blocks_;
  std::unordered_map<std::string, std::vector<size_t>> defs_;
  bool hasCall_ = false;
};

// The copy webs of a loop: the registers it defines only by `mov` (32 bits, any guard: a
// guarded move keeps the old value or takes the new one, both candidates) from web registers,
// registers it does not define, symbols or immediates. Returned as one set (every value any of
// them can hold is among the candidates of the union).
std::set<std::string> copyWebs(const Function& f, const LoopView& loop, const std::vector<std::string>& defined) {
  std::set<std::string> web;
  for (const auto& r : defined) {
    bool copies = true;
    for (size_t s : loop.defsOf(r)) {
      const auto& in = std::get<Instruction>(f.body[s]);
      copies = copies && in.opcode == "mov" && is32Bit(in) && in.operands.size() == 2 &&
               isPlainName(in.operands[0]) && in.operands[0].text == r &&
               (isPlainName(in.operands[1]) || in.operands[1].kind == OperandKind::Integer);
    }
    if (copies) web.insert(r);
  }
  // A move from a register the loop defines otherwise takes it out, and so on.
  for (bool shrank = true; shrank;) {
    shrank = false;
    for (auto it = web.begin(); it != web.end();) {
      bool keep = true;
      for (size_t s : loop.defsOf(*it)) {
        const Operand& from = std::get<Instruction>(f.body[s]).operands[1];
        if (from.kind == OperandKind::Name && loop.defines(from.text) && !web.count(from.text)) keep = false;
      }
      if (keep) {
        ++it;
      } else {
        it = web.erase(it);
        shrank = true;
      }
    }
  }
  return web;
}

}  // namespace

std::vector<ValueSetLoop> valueSetLoops(const Function& f, const CFG& cfg, const std::vector<const AccessSite*>& candidates,
                                        size_t maxCandidates) {
  std::vector<ValueSetLoop> out;
  for (const auto& loop : cfg.loops()) {
    LoopView view(f, cfg, loop);
    // The one block outside the loop that enters it, with a statement to put the checks at.
    std::vector<size_t> outside;
    for (size_t p : cfg.blocks()[loop.header].predecessors)
      if (std::find(loop.blocks.begin(), loop.blocks.end(), p) == loop.blocks.end()) outside.push_back(p);
    if (outside.size() != 1 || cfg.blocks()[outside[0]].last == cfg.blocks()[outside[0]].first) continue;

    std::vector<std::string> defined;
    for (size_t b : loop.blocks)
      for (size_t i = cfg.blocks()[b].first; i < cfg.blocks()[b].last; ++i)
        if (const auto* in = std::get_if<Instruction>(&f.body[i]))
          forEachDefinedRegister(*in, [&](const std::string& r) {
            if (std::find(defined.begin(), defined.end(), r) == defined.end()) defined.push_back(r);
          });
    std::sort(defined.begin(), defined.end());
    const std::set<std::string> web = copyWebs(f, view, defined);
    if (web.empty()) continue;

    ValueSetLoop vl;
    vl.header = loop.header;
    vl.preheaderLast = cfg.blocks()[outside[0]].last - 1;
    // The candidates: each web register's value on entry, and what the loop moves in from
    // outside the web (a register it does not define, a symbol, an immediate).
    for (const auto& r : web) vl.candidates.push_back(Operand::name(r));
    for (const auto& r : web)
      for (size_t s : view.defsOf(r)) {
        Operand from = std::get<Instruction>(f.body[s]).operands[1];
        from.loc = {};
        if (from.kind == OperandKind::Name && web.count(from.text)) continue;
        if (std::find(vl.candidates.begin(), vl.candidates.end(), from) == vl.candidates.end())
          vl.candidates.push_back(from);
      }
    if (vl.candidates.size() > maxCandidates) continue;

    for (const AccessSite* a : candidates) {
      if (!view.contains(a->statement) || a->addressRegister.empty()) continue;
      // The statements computing the address, back to one web register read once: each defined
      // once in the loop, by pure arithmetic, before its reader on every path (so each reads the
      // value this iteration made); every other operand a register the loop does not define, a
      // symbol or an immediate. (In post-order: each statement after those it reads.)
      std::vector<size_t> chain;
      std::string from;
      bool ok = true;
      std::function<void(const std::string&, size_t)> walk = [&](const std::string& reg, size_t reader) {
        if (!ok || !view.defines(reg)) return;  // not defined in the loop: the same before it
        if (web.count(reg)) {
          if (!from.empty()) ok = false;  // read twice: the web may have moved in between
          from = reg;
          return;
        }
        const auto& defs = view.defsOf(reg);
        if (defs.size() != 1 || !view.dominates(defs[0], reader) ||
            std::find(chain.begin(), chain.end(), defs[0]) != chain.end()) {
          ok = false;
          return;
        }
        const auto& in = std::get<Instruction>(f.body[defs[0]]);
        if (!isPureArithmetic(in) || !isPlainName(in.operands[0])) {
          ok = false;
          return;
        }
        for (size_t k = 1; k < in.operands.size() && ok; ++k) {
          const Operand& o = in.operands[k];
          if (o.kind == OperandKind::Integer) continue;
          if (!isPlainName(o)) {
            ok = false;
            return;
          }
          walk(o.text, defs[0]);
        }
        chain.push_back(defs[0]);
      };
      walk(a->addressRegister, a->statement);
      if (!ok || from.empty()) continue;
      vl.accesses.push_back({a, from, std::move(chain)});
    }
    if (!vl.accesses.empty()) out.push_back(std::move(vl));
  }
  return out;
}

}  // namespace cucatch::analysis
