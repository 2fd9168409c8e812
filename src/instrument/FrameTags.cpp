#include "instrument/FrameTags.h"

#include <fmt/format.h>

#include <unordered_set>

#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

constexpr const char* kUntagged = "%__cc_lt";  // the untagged copies (%__cc_lt<i>)
constexpr const char* kScratch = "%__cc_lts";
constexpr const char* kPredicate = "%__cc_ltp";

// The statements of `f` that make a generic pointer into its own frame: `cvta.local` (to
// generic) of a value made only from its local variables' symbols.
std::vector<size_t> ownFrameCvtas(const FunctionChecks& f) {
  std::vector<size_t> out;
  const PointerAnalysis& pa = f.analysis;
  auto ownVariable = [&](const std::string& symbol) { return localVariable(f.symbols, symbol) != nullptr; };
  for (const PointerDef& d : pa.defs()) {
    if (d.kind != DefKind::Derived || !d.spaceFromCvta || !d.cvtaToGeneric || d.space != Space::Local) continue;
    const auto& in = std::get<Instruction>(f.function.body[d.statement]);
    if (in.loc.line == 0 || in.operands.size() < 2) continue;  // (cucatch's own)
    const Operand& source = in.operands[1];
    bool own = source.kind == OperandKind::Name && (ownVariable(source.text) ||
                                                    (pa.registers().is64Bit(source.text) &&
                                                     pa.madeOnlyFromSymbols(source.text, ownVariable)));
    if (own) out.push_back(d.statement);
  }
  return out;
}

class FrameTagEdits {
 public:
  explicit FrameTagEdits(FunctionChecks& f) : f_(f) {}

  void run(const FrameTags& tags) {
    if (tags.functions.count(f_.function.name)) tagOwnPointers();
    if (tags.any()) {
      untagAccesses();
      untagLocalConversions();
      stripPrintfArguments();
    }
    if (count_ == 0 && !tagged_) return;
    if (count_)
      f_.declarations += fmt::format(".reg .b64 {}<{}>, {};\n.reg .pred {};\n", kUntagged, count_, kScratch, kPredicate);
    f_.markRewritten();
  }

 private:
  void tagOwnPointers() {
    const FrameTableRegs regs;
    for (size_t s : ownFrameCvtas(f_)) {
      const auto& in = std::get<Instruction>(f_.function.body[s]);
      std::string g = in.guard ? guardPrefix(in.guard->predicate, in.guard->negated) : "";
      f_.edits.after[s] += frameTagged(regs, in.operands[0].text, g);
      ++f_.unit.stats.frameTaggedPointers;
      tagged_ = true;
    }
  }

  std::string fresh() { return fmt::format("{}{}", kUntagged, count_++); }

  // A 64-bit register operand the statement reads goes through an untagged copy.
  void throughUntagged(size_t statement, Operand& o) {
    std::string copy = fresh();
    f_.edits.before[statement] += untagPointer(copy, o.text);
    o.text = copy;
    ++f_.unit.stats.frameTagUntags;
  }

  bool isOwn(const Statement& s) const {
    const auto* in = std::get_if<Instruction>(&s);
    return in && in->loc.line != 0;
  }

  // Generic accesses whose address register no check replaced by its untagged copy: those
  // proven in bounds, and those left unchecked. (Accesses through a pointer known to be made from
  // a global, shared or constant variable carry no frame tag.)
  void untagAccesses() {
    std::unordered_set<size_t> done;
    for (const AccessSite& a : f_.analysis.accesses()) {
      if (a.access.space != Space::Generic || a.addressRegister.empty() || done.count(a.statement)) continue;
      if (a.pointerSpace != Space::Generic && a.pointerSpace != Space::Local) continue;
      if (!isOwn(f_.function.body[a.statement])) continue;
      Operand& o = std::get<Instruction>(f_.function.body[a.statement]).operands[a.access.addressOperand];
      if (o.text.starts_with("%__cc_") || !f_.analysis.registers().is64Bit(o.text)) continue;
      throughUntagged(a.statement, o);
      done.insert(a.statement);
    }
  }

  // `cvta.to.local` of a generic pointer: of its untagged copy.
  void untagLocalConversions() {
    for (size_t i = 0; i < f_.function.body.size(); ++i) {
      if (!isOwn(f_.function.body[i])) continue;
      auto& in = std::get<Instruction>(f_.function.body[i]);
      if (in.opcode != "cvta" || !in.hasModifier(".to") || !in.hasModifier(".local") || in.operands.size() < 2) continue;
      Operand& o = in.operands[1];
      if (o.kind == OperandKind::Name && f_.analysis.registers().is64Bit(o.text)) throughUntagged(i, o);
    }
  }

  // The 64-bit values that may be pointers stored into a printf's argument buffer, before the
  // call in its block: a local array of this frame, whose generic address is vprintf's second
  // argument.
  void stripPrintfArguments() {
    Function& fn = f_.function;
    std::vector<size_t> scopeStart{0};
    for (size_t i = 0; i < fn.body.size(); ++i) {
      if (auto* b = std::get_if<ScopeBrace>(&fn.body[i])) {
        if (b->open) scopeStart.push_back(i);
        else if (scopeStart.size() > 1) scopeStart.pop_back();
        continue;
      }
      auto* in = std::get_if<Instruction>(&fn.body[i]);
      if (!in || in->opcode != "call") continue;
      CallShape c = callShape(*in);
      if (!c.callee || c.callee->text != "vprintf" || !c.arguments || c.arguments->elements.size() < 2) continue;
      const std::string& param = c.arguments->elements[1].text;
      const Operand* buffer = nullptr;
      for (size_t j = scopeStart.back(); j < i; ++j) {
        auto* st = std::get_if<Instruction>(&fn.body[j]);
        if (st && st->opcode == "st" && st->hasModifier(".param") && st->operands.size() > 1 &&
            st->operands[0].text == param)
          buffer = &st->operands[1];
      }
      if (buffer && buffer->kind != OperandKind::Name) continue;  // (no arguments: a null buffer)
      auto start = buffer ? f_.ranges.offsetFromSymbol(buffer->text) : std::nullopt;
      if (!start || start->second.lo != start->second.hi || !localVariable(f_.symbols, start->first)) {
        ++f_.unit.stats.printfBuffersUnknown;
        continue;
      }
      stripStoresInto(i, start->first, start->second.lo);
    }
  }

  // Stores before `call` in its block whose first byte lies in the object of `frame` that starts
  // at `begin` (to the next start the frame's layout knows, or the frame's end).
  void stripStoresInto(size_t call, const std::string& frame, int64_t begin) {
    int64_t end = static_cast<int64_t>(f_.symbols.at(frame).size);
    if (f_.frames)
      if (auto it = f_.frames->starts().find(frame); it != f_.frames->starts().end())
        if (auto next = it->second.upper_bound(static_cast<uint64_t>(begin)); next != it->second.end())
          end = static_cast<int64_t>(*next);
    const size_t block = f_.cfg.blockOf(call);
    for (const AccessSite& a : f_.analysis.accesses()) {
      if (a.statement >= call || f_.cfg.blockOf(a.statement) != block || a.access.kind != AccessKind::Write) continue;
      if (a.access.space != Space::Local && a.access.space != Space::Generic) continue;
      auto at = f_.ranges.firstByteOffsets(a);
      if (!at || at->first != frame || at->second.lo < begin || at->second.hi >= end) continue;
      auto& in = std::get<Instruction>(f_.function.body[a.statement]);
      if (!isOwn(f_.function.body[a.statement]) || in.opcode != "st") continue;
      Operand& value = in.operands.back();
      if (value.kind == OperandKind::Vector)
        for (Operand& e : value.elements) strip(a.statement, e);
      else
        strip(a.statement, value);
    }
  }

  void strip(size_t statement, Operand& value) {
    if (value.kind != OperandKind::Name || !f_.analysis.registers().is64Bit(value.text)) return;
    bool mayBePointer = false;
    for (const PointerDef& d : f_.analysis.defs())
      if (d.reg == value.text && d.kind != DefKind::Integer) mayBePointer = true;
    if (!mayBePointer) return;
    std::string copy = fresh();
    f_.edits.before[statement] += stripFrameTag(copy, value.text, kScratch, kPredicate);
    value.text = copy;
    ++f_.unit.stats.printfArgumentsStripped;
  }

  FunctionChecks& f_;
  size_t count_ = 0;
  bool tagged_ = false;
};

}  // namespace

FrameTags frameTagsOf(const std::vector<std::unique_ptr<FunctionChecks>>& functions, const FrameTableUse& use) {
  FrameTags tags;
  for (const auto& f : functions)
    if (!f->function.isEntry && use.takers.count(f->function.name) && !ownFrameCvtas(*f).empty())
      tags.functions.insert(f->function.name);
  return tags;
}

void addFrameTags(FunctionChecks& f, const FrameTags& tags) { FrameTagEdits(f).run(tags); }

}  // namespace cucatch::instrument
