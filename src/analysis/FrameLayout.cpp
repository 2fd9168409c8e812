#include "analysis/FrameLayout.h"

#include <unordered_set>
#include <vector>

namespace cucatch::analysis {

using namespace cucatch::ptx;

FrameLayout::FrameLayout(const Function& f, const PointerAnalysis& pa, const SymbolTable& symbols,
                         const ValueRanges& ranges)
    : pa_(pa) {
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
  keepWholeWhereOffsetsCross(ranges);
}

void FrameLayout::keepWholeWhereOffsetsCross(const ValueRanges& ranges) {
  for (const auto& a : pa_.accesses()) {
    if (a.addressRegister.empty() || a.access.size == 0) continue;
    // (First the bounded offset from a frame, which few accesses have, then the walk back to
    // the object the address is made from.)
    auto from = ranges.firstByteOffsets(a);
    if (!from || !frameBytes_.count(from->first) || keptWhole_.count(from->first)) continue;
    std::optional<LocalObject> o = anyObjectOf(a);
    if (!o || o->frame != from->first) continue;
    // The first byte's offsets, [lo, end) with the access's size, against the frame's other
    // objects: [0, start) and [start + size, frame's end).
    int64_t lo = from->second.lo, end = from->second.hi + static_cast<int64_t>(a.access.size);
    int64_t start = static_cast<int64_t>(o->start), past = static_cast<int64_t>(o->start + o->size);
    int64_t frameEnd = static_cast<int64_t>(frameBytes_.at(o->frame));
    bool below = start > 0 && lo < start && end > 0, above = past < frameEnd && end > past && lo < frameEnd;
    if (below || above) keptWhole_.insert(o->frame);
  }
}

std::optional<std::string> FrameLayout::frameOf(const std::string& reg) const {
  auto it = frameRegisters_.find(reg);
  if (it == frameRegisters_.end()) return std::nullopt;
  return it->second;
}

LocalObject FrameLayout::object(const std::string& frame, uint64_t start) const {
  const std::set<uint64_t>& all = starts_.at(frame);
  auto next = all.upper_bound(start);
  uint64_t end = next == all.end() ? frameBytes_.at(frame) : *next;
  return LocalObject{frame, start, end - start};
}

FrameLayout::Origins FrameLayout::originsOf(const std::string& reg) const {
  const auto& defs = pa_.defs();
  Origins out;
  std::unordered_set<std::string> seen;
  std::vector<std::string> work{reg};
  while (!work.empty()) {
    std::string r = work.back();
    work.pop_back();
    if (!seen.insert(r).second) continue;
    if (frameOf(r)) {  // an address made from the frame, not from one start
      out.other = true;
      continue;
    }
    bool defined = false;
    for (size_t i = 0; i < defs.size(); ++i) {
      const PointerDef& d = defs[i];
      if (d.reg != r) continue;
      defined = true;
      if (startDefs_.count(i)) {
        out.starts.insert(i);
      } else if (d.kind == DefKind::Derived && d.mapaRank.empty() &&
                 (!d.spaceFromCvta || (d.cvtaToGeneric && d.space == Space::Local))) {
        // (Arithmetic and copies; and cvta.local, which makes a local address generic: the
        // same object, as GlobalChecks moves its bounds.)
        work.push_back(d.sources[0]);
      } else if (d.kind == DefKind::Select && !d.sources[0].empty() && !d.sources[1].empty()) {
        work.push_back(d.sources[0]);
        work.push_back(d.sources[1]);
      } else {
        out.other = true;
      }
    }
    out.other |= !defined;
  }
  return out;
}

std::optional<LocalObject> FrameLayout::anyObjectOf(const AccessSite& a) const {
  if (a.addressRegister.empty() || a.reachedByUndefined) return std::nullopt;
  Origins o = originsOf(a.addressRegister);
  if (o.other || o.starts.empty()) return std::nullopt;
  const auto& first = startDefs_.at(*o.starts.begin());
  for (size_t d : o.starts)
    if (startDefs_.at(d) != first) return std::nullopt;  // two objects
  return object(first.first, first.second);
}

std::optional<LocalObject> FrameLayout::objectOf(const AccessSite& a) const {
  std::optional<LocalObject> o = anyObjectOf(a);
  if (!o || keptWhole_.count(o->frame)) return std::nullopt;
  return o;
}

std::optional<LocalObject> FrameLayout::startedBy(size_t def) const {
  auto it = startDefs_.find(def);
  if (it == startDefs_.end() || keptWhole_.count(it->second.first)) return std::nullopt;
  return object(it->second.first, it->second.second);
}

bool FrameLayout::reachedByStart(const std::string& reg) const {
  for (size_t d : originsOf(reg).starts)
    if (startedBy(d)) return true;
  return false;
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
