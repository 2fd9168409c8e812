#include "analysis/FrameLayout.h"

#include <unordered_set>
#include <vector>

namespace cucatch::analysis {

using namespace cucatch::ptx;

FrameLayout::FrameLayout(const Function& f, const PointerAnalysis& pa, const SymbolTable& symbols) : f_(f), pa_(pa) {
  // Frame registers: a `mov` of a local variable's symbol, and cvta.local of such a register
  // (the generic frame pointer), each its register's only definition.
  const auto& defs = pa.defs();
  for (const auto& d : defs) {
    if (d.kind != DefKind::Base || d.origin != BaseOrigin::Symbol || !pa.onlyDefinition(d.reg)) continue;
    const SymbolInfo* frame = localVariable(symbols, d.symbol);
    if (!frame) continue;
    frameBytes_[d.symbol] = frame->size;
    frameRegisters_[d.reg] = d.symbol;
  }
  for (const auto& d : defs)
    if (d.kind == DefKind::Derived && d.spaceFromCvta && d.cvtaToGeneric && d.space == Space::Local &&
        pa.onlyDefinition(d.reg))
      if (auto frame = frameOf(d.sources[0])) frameRegisters_[d.reg] = *frame;
  // Starts: `add X, frame, c` (either operand order), unguarded.
  for (size_t i = 0; i < defs.size(); ++i) {
    const PointerDef& d = defs[i];
    if (d.kind != DefKind::Derived || d.spaceFromCvta || !d.mapaRank.empty()) continue;
    const auto& in = std::get<Instruction>(f.body[d.statement]);
    if (in.opcode != "add" || in.guard || in.operands.size() != 3) continue;
    for (int k = 1; k <= 2; ++k) {
      const Operand& other = in.operands[3 - k];
      if (in.operands[k].kind != OperandKind::Name || other.kind != OperandKind::Integer) continue;
      auto frame = frameOf(in.operands[k].text);
      if (!frame || other.value < 0 || static_cast<uint64_t>(other.value) >= frameBytes_.at(*frame)) continue;
      startDefs_[i] = {*frame, static_cast<uint64_t>(other.value)};
      starts_[*frame].insert(static_cast<uint64_t>(other.value));
    }
  }
}

std::optional<std::string> FrameLayout::frameOf(const std::string& reg) const {
  auto it = frameRegisters_.find(reg);
  if (it == frameRegisters_.end()) return std::nullopt;
  return it->second;
}

std::optional<LocalObject> FrameLayout::objectOf(const AccessSite& a) const {
  if (a.addressRegister.empty() || a.reachedByUndefined) return std::nullopt;
  // Back from the address register through the definitions that move a pointer (arithmetic,
  // copies, selects: every definition of every register, flow-insensitive) to the starts they
  // come from; the frame register itself, or any other origin, ends the search with none.
  const auto& defs = pa_.defs();
  std::unordered_set<std::string> seen;
  std::vector<std::string> work{a.addressRegister};
  std::optional<std::pair<std::string, uint64_t>> found;
  while (!work.empty()) {
    std::string reg = work.back();
    work.pop_back();
    if (!seen.insert(reg).second) continue;
    if (frameOf(reg)) return std::nullopt;  // an address made from the frame, not from one start
    bool defined = false;
    for (size_t i = 0; i < defs.size(); ++i) {
      const PointerDef& d = defs[i];
      if (d.reg != reg) continue;
      defined = true;
      if (auto s = startDefs_.find(i); s != startDefs_.end()) {
        if (found && *found != s->second) return std::nullopt;  // two objects
        found = s->second;
        continue;
      }
      if (d.kind == DefKind::Derived && !d.spaceFromCvta && d.mapaRank.empty()) {
        work.push_back(d.sources[0]);
        continue;
      }
      if (d.kind == DefKind::Select && !d.sources[0].empty() && !d.sources[1].empty()) {
        work.push_back(d.sources[0]);
        work.push_back(d.sources[1]);
        continue;
      }
      return std::nullopt;
    }
    if (!defined) return std::nullopt;
  }
  if (!found) return std::nullopt;
  const auto& [frame, start] = *found;
  const std::set<uint64_t>& all = starts_.at(frame);
  auto next = all.upper_bound(start);
  uint64_t end = next == all.end() ? frameBytes_.at(frame) : *next;
  return LocalObject{frame, start, end - start};
}

std::optional<LiveLocalBound> liveLocalBound(const Function& f) {
  if (!f.isEntry) return std::nullopt;
  std::optional<std::string> frame;
  for (const auto& s : f.body) {
    if (const auto* in = std::get_if<Instruction>(&s); in && in->opcode == "alloca") return std::nullopt;
    const auto* v = std::get_if<VariableDecl>(&s);
    if (!v || v->space != ".local") continue;
    for (const auto& d : v->declarators) {
      if (frame) return std::nullopt;
      frame = d.name;
    }
  }
  return LiveLocalBound{frame.value_or("")};
}

}  // namespace cucatch::analysis
