#include "instrument/FrameTags.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "instrument/DeviceHeap.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

constexpr const char* kUntagged = "%__cc_lt";  // the untagged copies (%__cc_lt<i>)
constexpr const char* kScratch = "%__cc_lts";
constexpr const char* kFrame = "%__cc_ltf";  // a printf buffer's frame, as a local address
constexpr const char* kPredicate = "%__cc_ltp";

// The statements of `f` that make a generic pointer into its own frame: `cvta.local` (to
// generic) of one of its local variables' symbols (plus a constant), or of a register made only
// from them. (Every such `cvta` is tagged, or a pointer into the frame made by an untagged one
// would compare unequal to the tagged ones.)
std::vector<size_t> ownFrameCvtas(const FunctionChecks& f) {
  std::vector<size_t> out;
  const PointerAnalysis& pa = f.analysis;
  auto ownVariable = [&](const std::string& symbol) { return localVariable(f.symbols, symbol) != nullptr; };
  for (size_t i = 0; i < f.function.body.size(); ++i) {
    const auto* in = std::get_if<Instruction>(&f.function.body[i]);
    if (!in || in->loc.line == 0 || in->opcode != "cvta" || !in->hasModifier(".local") || in->hasModifier(".to") ||
        in->operands.size() < 2)
      continue;
    const Operand& source = in->operands[1];
    bool own = false;
    if (source.kind == OperandKind::Name)
      own = ownVariable(source.text) ||
            (pa.registers().is64Bit(source.text) && pa.madeOnlyFromSymbols(source.text, ownVariable));
    else if (source.kind == OperandKind::Expression)
      own = ownVariable(source.text.substr(0, source.text.find_first_of("+-")));  // (symbol+constant)
    if (own) out.push_back(i);
  }
  return out;
}

// Whether operand `v` is a register some definition of which may make a pointer.
bool mayBePointer(const PointerAnalysis& pa, const Operand& v) {
  return v.kind == OperandKind::Name && pa.mayHoldPointer(v.text);
}

// A call of vprintf and the array of the caller's frame its arguments are in (the symbol and the
// offset of the generic address it is given), where that is known.
struct PrintfCall {
  size_t call = 0;
  std::optional<std::pair<std::string, int64_t>> buffer;
};
std::vector<PrintfCall> printfCalls(const FunctionChecks& f) {
  std::vector<PrintfCall> out;
  for (const CallArgumentStores& site : callArgumentStores(f.function)) {
    const auto& in = std::get<Instruction>(f.function.body[site.call]);
    CallShape c = callShape(in);
    if (in.loc.line == 0 || !c.callee || c.callee->text != "vprintf" || !c.arguments ||
        c.arguments->elements.size() < 2)
      continue;
    const std::string& param = c.arguments->elements[1].text;
    const Operand* buffer = nullptr;
    for (size_t j : site.stores) {
      const auto& st = std::get<Instruction>(f.function.body[j]);
      if (st.operands[0].text == param) buffer = &st.operands[1];
    }
    if (buffer && buffer->kind != OperandKind::Name) continue;  // (no arguments: a null buffer)
    PrintfCall p{site.call, std::nullopt};
    auto start = buffer ? f.ranges.offsetFromSymbol(buffer->text) : std::nullopt;
    if (start && start->second.lo == start->second.hi && localVariable(f.symbols, start->first))
      p.buffer = std::make_pair(start->first, start->second.lo);
    out.push_back(std::move(p));
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
      f_.declarations +=
          fmt::format(".reg .b64 {}<{}>, {}, {};\n.reg .pred {};\n", kUntagged, count_, kScratch, kFrame, kPredicate);
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

  // The arguments of a printf that may be pointers, frame tags stripped in its argument buffer
  // (an array of this frame, whose generic address is vprintf's second argument) right before
  // the call: the 8-byte slots of the buffer that the function stores such values into, wherever
  // it does (nvcc may store one printf's arguments in a block before a branch to two calls).
  void stripPrintfArguments() {
    for (const PrintfCall& p : printfCalls(f_)) {
      if (!p.buffer) continue;  // (then no function of the module tags: frameTagsOf)
      const auto& in = std::get<Instruction>(f_.function.body[p.call]);
      std::string g = in.guard ? guardPrefix(in.guard->predicate, in.guard->negated) : "";
      const auto& [frame, begin] = *p.buffer;
      for (int64_t offset : pointerSlots(frame, begin)) {
        std::string value = fresh();
        f_.edits.before[p.call] += fmt::format("{g}mov.u64 {frame}, {symbol};\n{g}ld.local.u64 {value}, [{frame}+{offset}];\n",
                                               fmt::arg("g", g), fmt::arg("frame", kFrame), fmt::arg("symbol", frame),
                                               fmt::arg("value", value), fmt::arg("offset", offset)) +
                                   stripFrameTag(value, value, kScratch, kPredicate) +
                                   fmt::format("{}st.local.u64 [{}+{}], {};\n", g, kFrame, offset, value);
        ++f_.unit.stats.printfArgumentsStripped;
      }
    }
  }

  // The offsets in `frame` of the 8-byte slots of the array starting at `begin` (to the next
  // start the frame's layout knows, or the frame's end) that the function stores a 64-bit value
  // that may be a pointer into.
  std::set<int64_t> pointerSlots(const std::string& frame, int64_t begin) const {
    int64_t end = static_cast<int64_t>(f_.symbols.at(frame).size);
    if (f_.frames)
      if (auto it = f_.frames->starts().find(frame); it != f_.frames->starts().end())
        if (auto next = it->second.upper_bound(static_cast<uint64_t>(begin)); next != it->second.end())
          end = static_cast<int64_t>(*next);
    std::set<int64_t> slots;
    for (const AccessSite& a : f_.analysis.accesses()) {
      if (a.access.kind != AccessKind::Write || (a.access.space != Space::Local && a.access.space != Space::Generic))
        continue;
      const auto& in = std::get<Instruction>(f_.function.body[a.statement]);
      if (in.loc.line == 0 || in.opcode != "st") continue;
      auto at = f_.ranges.firstByteOffsets(a);
      if (!at || at->first != frame || at->second.lo != at->second.hi || at->second.lo < begin || at->second.lo >= end)
        continue;
      // Only 8-byte stores (of each element): the program's own store of 8 bytes there also says
      // that the slot is aligned for the reload.
      const Operand& value = in.operands.back();
      const size_t elements = value.kind == OperandKind::Vector ? value.elements.size() : 1;
      if (a.access.size != 8 * elements) continue;
      auto slot = [&](const Operand& v, int64_t offset) {
        if (offset + 8 <= end && mayBePointer(f_.analysis, v)) slots.insert(offset);
      };
      if (value.kind == OperandKind::Vector)
        for (size_t k = 0; k < value.elements.size(); ++k) slot(value.elements[k], at->second.lo + 8 * int64_t(k));
      else
        slot(value, at->second.lo);
    }
    return slots;
  }

  FunctionChecks& f_;
  size_t count_ = 0;
  bool tagged_ = false;
};

}  // namespace

namespace {

// A call in `f` that hands a value that may be a pointer to code `module` may not hold the body
// of: its callee's name, or "" for none.
std::string callOutsideWithPointer(const FunctionChecks& f, const Module& module, bool wholeProgram) {
  std::unordered_map<std::string, const Function*> functions;
  for (const Function* g : module.functions())
    if (auto [it, inserted] = functions.try_emplace(g->name, g); !inserted && g->hasBody) it->second = g;
  auto outside = [&](const CallShape& c) -> std::string {
    if (c.prototype || !c.callee) return wholeProgram ? "" : "a function through a pointer";
    const std::string& name = c.callee->text;
    if (name.starts_with("__cucatch") || isCudaSystemFunction(name)) return "";
    auto it = functions.find(name);
    if (it == functions.end() || !it->second->hasBody) return name;
    const auto& linkage = it->second->linkage;
    bool weak = std::find(linkage.begin(), linkage.end(), ".weak") != linkage.end();
    return weak && !wholeProgram ? name : "";
  };
  auto pointer = [&](const Operand& e) { return mayBePointer(f.analysis, e); };
  for (const CallArgumentStores& site : callArgumentStores(f.function)) {
    const auto& in = std::get<Instruction>(f.function.body[site.call]);
    if (in.loc.line == 0) continue;  // (cucatch's own)
    std::string callee = outside(callShape(in));
    if (callee.empty()) continue;
    for (size_t j : site.stores) {
      const Operand& v = std::get<Instruction>(f.function.body[j]).operands[1];
      if (v.kind == OperandKind::Vector ? std::any_of(v.elements.begin(), v.elements.end(), pointer) : pointer(v))
        return callee;
    }
  }
  return "";
}

}  // namespace

FrameTags frameTagsOf(const std::vector<std::unique_ptr<FunctionChecks>>& functions, const FrameTableUse& use,
                      const Module& module, bool wholeProgram) {
  FrameTags tags;
  for (const auto& f : functions)
    if (!f->function.isEntry && use.takers.count(f->function.name) && !ownFrameCvtas(*f).empty())
      tags.functions.insert(f->function.name);
  if (tags.functions.empty()) return tags;
  // A printf whose arguments could not be stripped would read or print a tagged pointer.
  for (const auto& f : functions)
    for (const PrintfCall& p : printfCalls(*f))
      if (!p.buffer) {
        tags.off = fmt::format("{} calls printf with an argument buffer not known to be an array of its frame",
                               f->function.name);
        tags.functions.clear();
        return tags;
      }
  for (const auto& f : functions)
    if (std::string callee = callOutsideWithPointer(*f, module, wholeProgram); !callee.empty()) {
      // (A call of another unit's function goes to its entry point with bounds: named as written.)
      if (callee.ends_with(kMetadataEntrySuffix)) callee.resize(callee.size() - kMetadataEntrySuffix.size());
      tags.off = fmt::format("{} hands a pointer to {}, outside the module", f->function.name, callee);
      tags.functions.clear();
      break;
    }
  return tags;
}

void addFrameTags(FunctionChecks& f, const FrameTags& tags) { FrameTagEdits(f).run(tags); }

}  // namespace cucatch::instrument
