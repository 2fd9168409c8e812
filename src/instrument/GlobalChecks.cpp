#include "instrument/GlobalChecks.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analysis/AddressFamilies.h"
#include "analysis/FrameLayout.h"
#include "analysis/LoopRanges.h"
#include "instrument/MetadataParams.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

// A const-space address is checked only where every base reaching it is the symbol of a
// `__constant__` array of known size (its static bounds). Anything else there (a parameter,
// a load) would be looked up in the tables, and constant-bank addresses are small numbers
// that would read as null pointers.
bool madeFromConstArray(const AccessSite& a, const PointerAnalysis& pa, const SymbolTable& symbols) {
  if (a.reachedByUndefined || a.reachingDefs.empty()) return false;
  for (size_t d : a.reachingDefs) {
    const PointerDef& def = pa.defs()[d];
    auto it = symbols.find(def.symbol);
    if (def.kind != DefKind::Base || def.origin != BaseOrigin::Symbol || it == symbols.end() ||
        it->second.space != Space::Const || it->second.size == 0)
      return false;
  }
  return true;
}

// Which accesses get a SAFETYCHECK, and why the others do not.
std::string_view uncheckedReason(const AccessSite& a, const PointerAnalysis& pa, const SymbolTable& symbols) {
  const RegisterFile& regs = pa.registers();
  if (!a.access.uncheckable.empty()) return a.access.uncheckable;
  switch (a.access.space) {
    case Space::Global:
    case Space::Generic: break;
    case Space::Param: return ".param space (parameters and call arguments)";
    case Space::Shared:
    case Space::SharedCluster: return "shared memory (checked by the shared-memory pass, not this one)";
    case Space::Local: return "local memory (checked by the local-memory pass, not this one)";
    case Space::Const: break;  // __constant__ arrays: below
    case Space::Other: return "other state space";
  }
  if (!a.addressSymbol.empty()) return "[symbol+offset] address (module variable or parameter)";
  if (a.addressRegister.empty()) return "absolute or computed address expression";
  if (!regs.is64Bit(a.addressRegister)) return "32-bit address register";
  if (a.access.space == Space::Const)
    return madeFromConstArray(a, pa, symbols) ? "" : "const-space address not made from a __constant__ array of known size";
  return {};
}

// The size of module variable `symbol` whose static bounds pointers made from its symbol are
// checked against: a `__device__` (.global) or `__constant__` (.const) variable of known size;
// 0 for anything else (other spaces, extern or unsized).
uint64_t staticBytes(const SymbolTable& symbols, const std::string& symbol) {
  auto it = symbols.find(symbol);
  if (it == symbols.end()) return 0;
  return it->second.space == Space::Global || it->second.space == Space::Const ? it->second.size : 0;
}

class GlobalChecks {
 public:
  explicit GlobalChecks(FunctionChecks& f) : fc_(f), pa_(f.analysis), symbols_(f.symbols) {}

  void run() {
    UnitResult& result = fc_.unit;
    // Accesses to check, and the registers whose metadata they need.
    std::vector<const AccessSite*> checked;
    std::unordered_set<std::string> relevant;
    for (const auto& a : pa_.accesses()) {
      // cucatch's own statements (a device-heap call's site argument, DeviceHeap.h) are neither
      // the program's accesses nor counted as such.
      if (std::get<Instruction>(fc_.function.body[a.statement]).loc.line == 0) continue;
      if (a.access.space == Space::Shared || a.access.space == Space::SharedCluster) continue;  // SharedChecks
      // (Local: LocalChecks', except through a pointer given with its bounds and converted here.)
      bool passedLocal = fc_.localThroughPassedPointer(a);
      if (a.access.space == Space::Local && !passedLocal) continue;
      if (staticallyInBounds(a)) {
        ++result.stats.provenInBounds;
        continue;
      }
      std::string_view why = passedLocal ? std::string_view() : uncheckedReason(a, pa_, symbols_);
      if (why.empty() && a.pointerSpace == Space::SharedCluster && !variableMetadata(a.addressRegister, Space::Shared))
        why = "generic pointer into distributed shared memory, not made from a shared variable";
      // A generic pointer into this function's frame: checked where its metadata is the frame's
      // (cvta.local of the local variable's address); one a callee was given is not known here.
      if (why.empty() && a.pointerSpace == Space::Local && !passedLocal && !variableMetadata(a.addressRegister, Space::Local))
        why = "generic pointer into local memory, not made from a local variable of known size";
      if (!why.empty()) {
        ++result.stats.unchecked[std::string(why)];
        continue;
      }
      checked.push_back(&a);
      relevant.insert(a.addressRegister);
      if (a.reachingDefs.size() > 1) ++result.stats.phiAccesses;
    }
    std::vector<CallArgument> arguments = callArguments();
    for (const CallArgument& c : arguments)
      if (!c.value.empty()) relevant.insert(c.value);
    untagUncheckedAddresses();
    if (checked.empty() && arguments.empty()) {
      if (untaggedCount_) {
        declareUntagged();
        fc_.markRewritten();
      }
      return;
    }
    // Base definitions of unknown origin reaching a generic access of unknown space, or whose
    // pointer a callee is given (it may access it generically): where the pointer turns out to
    // be in the block's shared window, the window bounds it (no table describes shared memory);
    // in a kernel, where it turns out to be in the thread's local window, the kernel's own
    // frame, the only local memory live there, bounds it (a use after scope fails).
    std::unordered_set<size_t> windowBases;
    for (const AccessSite* a : checked)
      if (a->access.space == Space::Generic && a->pointerSpace == Space::Generic)
        for (size_t d : a->reachingDefs)
          if (mayPointIntoWindow(pa_.defs()[d])) windowBases.insert(d);
    const bool accessedWindowBases = !windowBases.empty();
    for (const CallArgument& c : arguments)
      for (size_t d = 0; d < pa_.defs().size(); ++d)
        if (c.sources.count(pa_.defs()[d].reg) && mayPointIntoWindow(pa_.defs()[d])) windowBases.insert(d);
    if (fc_.options.sharedWindowKnown && !windowBases.empty()) fc_.useSharedWindow(fc_.options.dynamicShared);
    const FrameTable* table = fc_.options.frameTable;
    if (table && (table->mayTake(fc_.function.name) ||
                  (fc_.function.isEntry && accessedWindowBases && callsEligible(fc_.function, *table)))) {
      // A device function: the frames live on its thread's stack are those of its table. A
      // kernel that accesses memory through such a pointer and whose callees may take a table:
      // its own frame, as below, and a stale pointer's frame named where the table still holds
      // it. (Not for a kernel's call arguments alone: a table costs the kernel 72 bytes of stack.)
      liveFrames_ = LiveFrames{true, "", 0, 0, FrameTableRegs{}.table, frameLookupName(fc_.unit.unit)};
    } else if (std::optional<LiveLocalBound> bound = liveLocalBound(fc_.function)) {
      uint64_t bytes = bound->frame.empty() ? 0 : symbols_.at(bound->frame).size;
      liveFrames_ = LiveFrames{true, bound->frame, bytes, bound->frame.empty() ? uint8_t(0) : objectId(bound->frame, bytes, false), "", ""};
    }
    relevant = pa_.withSources(std::move(relevant));
    // Metadata registers for each relevant pointer register.
    // In a fixed order, so that the output does not depend on hashing.
    std::vector<std::string> ordered(relevant.begin(), relevant.end());
    std::sort(ordered.begin(), ordered.end());
    size_t n64 = 0, n32 = 0;
    for (const auto& r : ordered) {
      meta_[r] = MetadataRegs{fmt::format("{}d{}", kMetaPrefix, n64), fmt::format("{}d{}", kMetaPrefix, n64 + 1),
                              fmt::format("{}m{}", kMetaPrefix, n32)};
      n64 += 2;
      n32 += 1;
    }

    Function& f = fc_.function;
    const FunctionRegs& regs = fc_.regs;
    auto& after = fc_.edits.after;
    // Metadata follows every definition of a relevant register.
    for (size_t index = 0; index < pa_.defs().size(); ++index) {
      const PointerDef& d = pa_.defs()[index];
      if (!relevant.count(d.reg)) continue;
      const auto& in = std::get<Instruction>(f.body[d.statement]);
      std::string g = in.guard ? guardPrefix(in.guard->predicate, in.guard->negated) : "";
      const MetadataRegs& to = meta_.at(d.reg);
      switch (d.kind) {
        case DefKind::Derived:
          // A cvta between generic and the shared, local or const window moves the address to
          // another window: the source's bounds move with it where they are a variable's
          // (shared or const) and the cvta makes a generic address; otherwise they do not
          // describe it.
          if (!d.mapaRank.empty()) {
            // Into another block of the cluster: where the source's metadata is a shared
            // variable's, the same variable there (same layout).
            if (d.mapaRank != d.reg && variableMetadata(d.sources[0], Space::Shared))
              after[d.statement] += cvtaMetadata(to, meta_.at(d.sources[0]), "mapa.u64", g, d.mapaRank);
            else
              after[d.statement] += unknownFor(d, to, g);
          } else if (d.spaceFromCvta && !d.cvtaToGeneric && d.space == Space::Local && g.empty()) {
            // A generic pointer made a local address: its bounds move with it where they are
            // local memory's (a frame its caller passed); otherwise nothing is known.
            mayBeUnknown_.insert(d.reg);
            after[d.statement] += localCvtaMetadata(regs, to, meta_.at(d.sources[0]));
          } else if (d.spaceFromCvta && d.space != Space::Global) {
            if (d.cvtaToGeneric && (d.space == Space::Shared || d.space == Space::Const || d.space == Space::Local) &&
                onlyVariablesOf(d.space, d.sources[0]))
              after[d.statement] += cvtaMetadata(to, meta_.at(d.sources[0]),
                                                 fmt::format("cvta.{}.u64", spaceName(d.space)), g);
            else
              after[d.statement] += unknownFor(d, to, g);
          } else if (std::optional<LocalObject> object = fc_.frames ? fc_.frames->startedBy(index) : std::nullopt) {
            // An object of the frame (analysis/FrameLayout.h): its own bounds, in the frame's
            // addresses (local or generic), so that a pointer made from it, here or in a callee
            // it is passed to, is checked against the object, not the whole frame.
            after[d.statement] += frameObjectMetadata(to, meta_.at(d.sources[0]), object->start, object->size,
                                                      frameObjectId(*object), g);
            ++result.stats.localArrayPointers;
          } else {
            after[d.statement] += copyMetadata(to, meta_.at(d.sources[0]), g);
            plainCopies_.insert(index);
          }
          break;
        case DefKind::Select: {
          MetadataRegs unknown = unknownRegs();
          const MetadataRegs& a = d.sources[0].empty() ? unknown : meta_.at(d.sources[0]);
          const MetadataRegs& b = d.sources[1].empty() ? unknown : meta_.at(d.sources[1]);
          if (d.sources[0].empty() || d.sources[1].empty()) after[d.statement] += unknownFor(d, unknown, "");
          after[d.statement] += selectMetadata(to, a, b, printOperand(in.operands.at(3)), g);
          break;
        }
        case DefKind::Base: {
          if (d.origin == BaseOrigin::Symbol) {
            // (A shared variable's bounds are in shared-window addresses: they serve the
            // generic pointer a cvta.shared makes from it, above.)
            const SymbolInfo* shared = sharedVariable(d.symbol);
            if (uint64_t bytes = staticBytes(symbols_, d.symbol))
              after[d.statement] += symbolMetadata(to, d.symbol, bytes, objectId(d.symbol, bytes, false), g);
            else if (const SymbolInfo* frame = localVariable(symbols_, d.symbol))  // (local-window addresses)
              after[d.statement] += symbolMetadata(to, d.symbol, frame->size, objectId(d.symbol, frame->size, false), g);
            else if (shared && shared->dynamicShared)
              after[d.statement] += dynamicSharedMetadata(regs, to, d.symbol, objectId(d.symbol, 0, true), g);
            else if (shared)
              after[d.statement] += symbolMetadata(to, d.symbol, shared->size, objectId(d.symbol, shared->size, false), g);
            else
              after[d.statement] += unknownFor(d, to, g);
          } else if (std::vector<std::string> passed = fc_.passedMetadata(d); !passed.empty()) {
            after[d.statement] += parameterMetadata(to, passed[0], passed[1], passed[2], g);
            ++result.stats.metadataParameters;
          } else if (!d.wide) {
            // A 32-bit shared address (two variables' symbols combined, a converted pointer)
            // on its way to a generic pointer: no table describes it.
            after[d.statement] += unknownFor(d, to, g);
          } else if (d.origin == BaseOrigin::Alloca) {
            // A local-window address, which no table describes; the block's own bounds are
            // LocalChecks' (a generic pointer made from it is left unchecked, as any cvta of a
            // local address that is not a variable's).
            after[d.statement] += unknownFor(d, to, g);
          } else {
            bool unknown = windowBases.count(index) != 0;
            bool window = unknown && fc_.options.sharedWindowKnown, frames = unknown && liveFrames_.on;
            after[d.statement] += readMetadata(regs, to, d.reg, g, fc_.newLabel("direct"), fc_.options.deviceHeapEntries,
                                                   window ? fc_.options.dynamicShared : "",
                                                   frames ? liveFrames_ : LiveFrames{});
            ++result.stats.metadataReads;
            result.stats.sharedWindowBases += window;
            countLiveFrames(frames);
          }
          break;
        }
        case DefKind::Integer:
          after[d.statement] += unknownFor(d, to, g);
          break;
      }
    }
    passMetadata(arguments);
    // An access whose bytes are known only at run time (a bulk copy, a wmma fragment) gets a
    // check of its own: none of the range reasoning below knows its span.
    std::erase_if(checked, [&](const AccessSite* a) {
      if (!a->access.extent) return false;
      add(*a, check(*a, freshUntagged()), "");
      return true;
    });
    // An access whose range a dominating check covered only goes through the untagged pointer.
    std::vector<bool> dominated = fc_.dominatedByCheck(checked);
    std::vector<const AccessSite*> own;
    for (size_t i = 0; i < checked.size(); ++i) {
      if (!dominated[i]) {
        own.push_back(checked[i]);
        continue;
      }
      const AccessSite& a = *checked[i];
      throughUntagged(a.statement, std::get<Instruction>(f.body[a.statement]).operands[a.access.addressOperand]);
      fc_.addDominated(a);
    }
    std::unordered_map<const AccessSite*, std::string> inRangeOf = loopRangeChecks(own);
    // A SAFETYCHECK before every other checked access, which then goes through the untagged
    // pointer; one range check for the accesses of a group, which share one untagged pointer.
    // In a strided loop whose range check passed, the group's check is jumped over.
    std::vector<std::vector<const AccessSite*>> groups = fc_.coalescedGroups(own);
    // Families among the accesses left with a check of their own: two checks each.
    std::unordered_set<const AccessSite*> inFamily;
    std::vector<const AccessSite*> single;
    for (const auto& group : groups)
      if (group.size() == 1 && !inRangeOf.count(group[0])) single.push_back(group[0]);
    if (fc_.options.families) {
      for (const AddressFamily& family : addressFamilies(f, fc_.cfg, pa_.registers(), single)) {
        checkFamily(family);
        inFamily.insert(family.members.begin(), family.members.end());
      }
    }
    // Families across guards among the rest: a test of their extremes before their region, which
    // otherwise runs a copy of it with their own checks (below, check()).
    if (fc_.options.guardedFamilies) {
      std::erase_if(single, [&](const AccessSite* a) { return inFamily.count(a) != 0; });
      for (const AddressFamily& family : guardedFamilies(f, fc_.cfg, pa_, single)) testGuardedFamily(family);
    }
    for (const auto& group : groups) {
      if (group.size() == 1 && inFamily.count(group[0])) continue;
      const AccessSite& first = *group.front();
      std::string inRange = inRangeOf.count(&first) ? inRangeOf.at(&first) : "";
      for (const AccessSite* a : group)
        if (!inRangeOf.count(a) || inRangeOf.at(a) != inRange) inRange.clear();
      const auto& in = std::get<Instruction>(f.body[first.statement]);
      std::string guard = in.guard ? in.guard->predicate : "";
      bool negated = in.guard && in.guard->negated;
      std::string untagged = freshUntagged();
      if (group.size() == 1) {
        add(first, check(first, untagged), inRange);
        continue;
      }
      CheckCode groupChecks;
      for (const AccessSite* a : group) groupChecks += check(*a, untagged);
      auto [lowest, span] = fc_.rangeOf(group);
      std::string slowLabel = fc_.newLabel("slow");
      add(first,
          safetyRangeCheck(regs, meta_.at(first.addressRegister), first.addressRegister, untagged, lowest, span, guard,
                           negated, groupChecks, slowLabel, fc_.newLabel()),
          inRange);
      result.stats.coalescedChecks += group.size() - 1;
    }

    fc_.declarations += declareMetadata(kMetaPrefix, n64, n32);
    declareUntagged();
    if (loopCount_) fc_.declarations += fmt::format(".reg .pred {}lr<{}>;\n", kMetaPrefix, loopCount_);
    for (size_t i = 0; i < recomputedTypes_.size(); ++i)
      fc_.declarations += fmt::format(".reg {} {}fam{};\n", recomputedTypes_[i], kMetaPrefix, i);
    // Registers reached by "no definition" on some path start out unknown.
    for (const auto& r : ordered) fc_.entry += unknownMetadata(meta_.at(r), "");
  }

 private:
  static constexpr const char* kMetaPrefix = "%__cc_";

  // A pointer argument of a call to a function given its metadata (MetadataParams.h).
  struct CallArgument {
    size_t call = 0;        // the call's statement
    std::string value;      // the register stored into the argument ("" for an immediate)
    std::string immediate;  // else the immediate's text
    std::unordered_set<std::string> sources;  // `value` and the registers it is made from
  };

  std::vector<CallArgument> callArguments() const {
    std::vector<CallArgument> out;
    const MetadataParams* mp = fc_.options.metadataParams;
    if (!mp) return out;
    const Function& f = fc_.function;
    for (size_t i = 0; i < f.body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&f.body[i]);
      if (!in || in->opcode != "call") continue;
      const std::vector<MetadataParams::Param>* passed = mp->passedBy(f.name, *in);
      if (!passed) continue;
      CallShape c = callShape(*in);
      for (const auto& p : *passed) {
        // (metadataParamsOf made sure that every such call has it.)
        size_t store = *argumentStore(f, i, c.arguments->elements.at(p.position).text);
        const Operand& v = std::get<Instruction>(f.body[store]).operands[1];
        CallArgument a;
        a.call = i;
        if (v.kind == OperandKind::Name && pa_.registers().is64Bit(v.text)) a.value = v.text;
        else a.immediate = printOperand(v);
        if (!a.value.empty()) a.sources = pa_.withSources({a.value});
        out.push_back(std::move(a));
      }
    }
    return out;
  }

  // The caller's side: before each call, the argument's metadata into the callee's metadata
  // parameters. The argument register's own metadata where every definition it may come from
  // gave it some; otherwise (an integer made into a pointer, an immediate) READMETADATA on the
  // value there, as the callee did before.
  void passMetadata(const std::vector<CallArgument>& arguments) {
    Function& f = fc_.function;
    bool scratchDeclared = false;
    for (const CallArgument& a : arguments) {
      std::string text;
      MetadataRegs from;
      bool known = !a.value.empty();
      for (const auto& r : a.sources)
        if (mayBeUnknown_.count(r)) known = false;
      if (known) {
        from = meta_.at(a.value);
      } else {
        from = MetadataRegs{kMetaPrefix + std::string("cb"), kMetaPrefix + std::string("cs"), kMetaPrefix + std::string("cm")};
        std::string value = a.value;
        if (value.empty()) {
          value = kMetaPrefix + std::string("cv");
          text += fmt::format("mov.b64 {}, {};\n", value, a.immediate);
        }
        text += readMetadata(fc_.regs, from, value, "", fc_.newLabel("direct"), fc_.options.deviceHeapEntries,
                             fc_.options.sharedWindowKnown ? fc_.options.dynamicShared : "", liveFrames_);
        countLiveFrames(liveFrames_.on);
        if (fc_.options.sharedWindowKnown) fc_.useSharedWindow(fc_.options.dynamicShared);
        scratchDeclared = true;
        ++fc_.unit.stats.metadataReads;
      }
      std::vector<std::string> names;
      for (size_t k = 0; k < 3; ++k) names.push_back(fmt::format("__cc_marg{}", fc_.unit.nextLabel++));
      text += passedMetadataArguments(names, from);
      fc_.edits.before[a.call] += text;
      auto& call = std::get<Instruction>(f.body[a.call]);
      Operand& list = const_cast<Operand&>(*callShape(call).arguments);
      for (const auto& n : names) list.elements.push_back(Operand::name(n));
      ++fc_.unit.stats.metadataArguments;
      fc_.markRewritten();
    }
    if (scratchDeclared)
      fc_.declarations += fmt::format(".reg .b64 {0}cb, {0}cs, {0}cv;\n.reg .b32 {0}cm;\n", kMetaPrefix);
  }

  // Where a generic pointer this base makes may point into the block's shared window or the
  // thread's local window: a pointer of unknown origin (not a variable's symbol, not an
  // alloca's local address, not a parameter whose callers pass its metadata, not a kernel's
  // parameter: the host cannot make a pointer into a block's shared memory or a thread's stack).
  bool mayPointIntoWindow(const PointerDef& d) const {
    if (d.kind != DefKind::Base || d.origin == BaseOrigin::Symbol || d.origin == BaseOrigin::Alloca) return false;
    if (d.origin == BaseOrigin::Parameter && fc_.function.isEntry && isOwnParameter(d)) return false;
    return fc_.passedMetadata(d).empty();
  }

  // `d` loads one of the function's own parameters (not a call's return value).
  bool isOwnParameter(const PointerDef& d) const {
    std::optional<ParamSlot> slot = paramSlotRead(std::get<Instruction>(fc_.function.body[d.statement]));
    if (!slot || !fc_.function.params) return false;
    for (const auto& p : fc_.function.params->params)
      for (const auto& decl : p.declarators)
        if (decl.name == slot->name) return true;
    return false;
  }

  // The variable `symbol` in the unit's objects (its index + 1: abi::kMetaStateVariable), which
  // names it in the report of a callee given a pointer made from it.
  uint8_t objectId(const std::string& symbol, uint64_t bytes, bool dynamic) {
    Site o;
    o.object = symbol;
    o.objectBytes = bytes;
    o.objectDynamic = dynamic;
    switch (symbols_.at(symbol).space) {
      case Space::Shared: o.objectSpace = "shared"; break;
      case Space::Const: o.objectSpace = "const"; break;
      case Space::Local:
        // A frame is its function's (the report says whose).
        return fc_.unit.objectId(localFrameObject(fc_.function, symbol, bytes));
      default: o.objectSpace = "global"; break;
    }
    return fc_.unit.objectId(o);
  }

  // The object of this function's frame `o` in the unit's objects, which names it in a report.
  uint8_t frameObjectId(const LocalObject& o) {
    return fc_.unit.objectId(localArrayObject(fc_.function, o.frame, symbols_.at(o.frame).size, o.start, o.size));
  }

  // A metadata read bounded by the live frames (`frames`): counted, and where it looks them up in
  // the frame table, the unit defines the lookup.
  void countLiveFrames(bool frames) {
    if (!frames) return;
    if (liveFrames_.table.empty()) {
      ++fc_.unit.stats.liveFrameBases;
    } else {
      ++fc_.unit.stats.frameTableBases;
      fc_.unit.frameLookups.insert(fc_.function.name);
    }
  }

  // Unknown metadata for `d` (into `to`), remembered: a callee given its register cannot be
  // given its metadata.
  std::string unknownFor(const PointerDef& d, const MetadataRegs& to, const std::string& g) {
    mayBeUnknown_.insert(d.reg);
    return unknownMetadata(to, g);
  }

  // Adds a check's code before access `a`; with `inRange` (the predicate of a strided loop's
  // range check), its inline part is jumped over from just after the untag (its first line).
  void add(const AccessSite& a, const CheckCode& code, const std::string& inRange) {
    std::string text = code.inlined;
    if (!inRange.empty()) {
      size_t untag = text.find('\n') + 1;
      std::string label = fc_.newLabel("inrange");
      text = text.substr(0, untag) + skipCheck(inRange, label) + text.substr(untag) + label + ":\n";
    }
    fc_.edits.before[a.statement] += text;
    fc_.outOfLine += code.outOfLine;
  }

  // One range check before each strided loop (analysis/LoopRanges.h) for its accesses whose
  // metadata is their base's; the predicate it sets, per access it covers.
  std::unordered_map<const AccessSite*, std::string> loopRangeChecks(const std::vector<const AccessSite*>& own) {
    std::unordered_map<const AccessSite*, std::string> inRangeOf;
    if (!fc_.options.loopRanges) return inRangeOf;
    Function& f = fc_.function;
    for (const StridedLoop& loop : stridedLoops(f, fc_.cfg, own)) {
      std::string inRange = fmt::format("{}lr{}", kMetaPrefix, loopCount_);
      std::string bound = loop.bound.kind == OperandKind::Integer ? std::to_string(loop.boundValue())
                                                                  : printOperand(loop.bound);
      std::string text = loopRangeStart(fc_.regs, inRange, loop.variable, loop.isSigned, bound, loop.step);
      size_t covered = 0;
      for (const AffineAccess& aa : loop.accesses) {
        // The address register's metadata must be the base's (copied at its definition).
        std::optional<size_t> def = pa_.onlyDefinition(aa.access->addressRegister);
        bool fromBase = false;
        if (def)
          for (size_t d : pa_.defsAt(*def))
            fromBase |= pa_.defs()[d].reg == aa.access->addressRegister && pa_.defs()[d].kind == DefKind::Derived &&
                        !pa_.defs()[d].sources.empty() && pa_.defs()[d].sources[0] == aa.base;
        if (!fromBase || !meta_.count(aa.base)) continue;
        text += loopRangeAccess(fc_.regs, inRange, meta_.at(aa.base), aa.base, aa.scale, fc_.offsetOf(*aa.access),
                                aa.access->access.size);
        inRangeOf[aa.access] = inRange;
        ++covered;
      }
      if (!covered) continue;
      ++loopCount_;
      fc_.unit.stats.loopRangeChecks += covered;
      fc_.atLoopEntry(loop.preheaderLast, text);
    }
    return inRangeOf;
  }

  // The SAFETYCHECK of access `a`, which is rewritten to go through `untagged`; and its site.
  // Access `a`'s site: the variable it addresses named where it is one of the module's.
  // A pointer into the function's frame is checked against the object of the frame it is made
  // from (frameObjectMetadata), named here; where it may be made from one of several objects, or
  // from an object or the frame, the site names none, and the report names the bounds' own
  // object (their metadata word's, as for a pointer a caller passed).
  Site siteOf(const AccessSite& a) {
    Site site = fc_.newSite(a);
    std::string variable = moduleVariable(a);
    if (variable.empty()) return site;
    const SymbolInfo& info = symbols_.at(variable);
    std::optional<LocalObject> object;
    if (info.space == Space::Local && fc_.frames) {
      object = fc_.frames->objectOf(a);
      if (!object && fc_.frames->reachedByStart(a.addressRegister)) {
        site.objectOfOwnFrame = true;
        return site;
      }
    }
    site.objectBytes = info.size;
    site.objectSpace = std::string(spaceName(info.space));
    site.objectDynamic = info.dynamicShared;
    site.object = std::move(variable);
    if (object) {
      site.objectFrameArray = true;
      site.objectFrameOffset = object->start;
      site.objectFrameBytes = info.size;
      site.objectBytes = object->size;
    }
    return site;
  }

  CheckCode check(const AccessSite& a, const std::string& untagged) {
    auto& in = std::get<Instruction>(fc_.function.body[a.statement]);
    Site site = siteOf(a);
    Operand& address = in.operands[a.access.addressOperand];
    CheckSite c = fc_.checkSite(a, site);
    c.untagged = untagged;
    if (auto region = regionOfMember_.find(&a); region != regionOfMember_.end())
      fc_.regionTests[region->second].version.uncheckedBranches.insert(c.label);
    CheckCode code;
    if (const auto& extent = a.access.extent)
      code = extentCheck(fc_.regs, meta_.at(a.addressRegister), c, printOperand(in.operands.at(extent->operand)),
                         in.operands.at(extent->operand).kind == OperandKind::Name, extent->perUnit, extent->fixed,
                         in.guard ? in.guard->predicate : "", in.guard && in.guard->negated);
    else
      code = safetyCheck(fc_.regs, meta_.at(a.addressRegister), c, in.guard ? in.guard->predicate : "",
                         in.guard && in.guard->negated);
    address.text = untagged;
    fc_.addSite(std::move(site), a);
    return code;
  }

  // Accesses left unchecked for what the instruction is (a shared-space wmma fragment or bulk
  // copy, a tensor copy, a size not known even at run time) and the memory hints (prefetch, discard,
  // applypriority, createpolicy's range, a tensor map's fence) still go to the address the
  // program meant: a tagged pointer's top byte would send them outside the address space (the
  // GPU faults: a Thrust merge on sm_90 did, through cp.async.bulk). Every 64-bit register
  // address of such an instruction goes through its untagged copy (an address in the shared or
  // local window has no tag, and loses nothing), and so do the global address
  // `tensormap.replace.global_address` writes into a tensor map, which later copies go through,
  // and the address `isspacep` asks about.
  void untagUncheckedAddresses() {
    Function& f = fc_.function;
    static const std::unordered_set<std::string> hints = {"prefetch", "prefetchu", "discard", "applypriority",
                                                          "createpolicy", "fence"};
    // Statements all of whose accesses are unchecked for what the instruction is.
    std::unordered_map<size_t, bool> allUnchecked;
    for (const AccessSite& a : pa_.accesses()) {
      bool unchecked = !a.access.uncheckable.empty() || (a.access.size == 0 && !a.access.extent);
      allUnchecked.try_emplace(a.statement, true).first->second &= unchecked;
    }
    auto untag = [&](size_t statement, Operand& o) {
      if (o.text.empty() || !pa_.registers().is64Bit(o.text)) return;
      throughUntagged(statement, o);
      ++fc_.unit.stats.untaggedUnchecked;
    };
    for (size_t i = 0; i < f.body.size(); ++i) {
      auto* in = std::get_if<Instruction>(&f.body[i]);
      if (!in || in->loc.line == 0) continue;  // (cucatch's own statements)
      // (isspacep asks which window an address is in: a tagged global pointer's top byte puts it
      // in none, where the program's own pointer is global.)
      bool valueIsAddress = (in->opcode == "tensormap" && in->hasModifier(".global_address")) || in->opcode == "isspacep";
      if (valueIsAddress && in->operands.size() > 1 && in->operands[1].kind == OperandKind::Name)
        untag(i, in->operands[1]);
      auto unchecked = allUnchecked.find(i);
      if (!hints.count(in->opcode) && (unchecked == allUnchecked.end() || !unchecked->second)) continue;
      for (Operand& o : in->operands)
        if (o.kind == OperandKind::Address) untag(i, o);
    }
  }

  // Access `e`'s address made again by `statements` (a family's extreme), into registers of its
  // own (%__cc_fam<i>), appended to `code`: the register that holds it.
  std::string addressAgain(const AccessSite& e, const std::vector<size_t>& statements, std::string& code) {
    // Register -> its value made again here, by this address's statements only: a register
    // another address's statements define again may hold another value where this one reads
    // it (code not in SSA form).
    std::unordered_map<std::string, std::string> renamed;
    for (size_t s : statements) {
      Instruction again = std::get<Instruction>(fc_.function.body[s]);
      for (size_t k = 1; k < again.operands.size(); ++k)
        if (auto it = renamed.find(again.operands[k].text);
            again.operands[k].kind == OperandKind::Name && it != renamed.end())
          again.operands[k].text = it->second;
      std::string& defined = again.operands[0].text;
      std::string to = fmt::format("{}fam{}", kMetaPrefix, recomputedTypes_.size());
      recomputedTypes_.push_back(pa_.registers().type(defined));
      renamed[defined] = to;
      defined = to;
      again.loc = {};
      code += printStatement(again) + "\n";
    }
    auto it = renamed.find(e.addressRegister);
    return statements.empty() || it == renamed.end() ? e.addressRegister : it->second;
  }

  // A family across guards (analysis/AddressFamilies.h, guardedFamilies): its extremes' addresses
  // made again where its region starts and tested against the base's metadata there, without a
  // report; where that fails, the region's copy with every member's own check runs
  // (FunctionChecks::regionTest). The members keep their checks (check() names them to the
  // region), which the region in place leaves out.
  // Accesses through one address register (AddressFamily::oneAddress): one range from the lowest
  // offset to the end of the highest access, against the register's own metadata, as their
  // checks read it.
  void testGuardedFamily(const AddressFamily& family) {
    const AccessSite& first = *family.members.front();
    std::string code;
    if (family.oneAddress) {
      auto [lowest, span] = fc_.rangeOf(family.members);
      code = regionFamilyTest(fc_.regs, fc_.regs.q(1), meta_.at(first.addressRegister), {first.addressRegister}, lowest,
                              span);
    } else {
      // The test reads the base's metadata: every member's must be that, moved unchanged (not
      // narrowed to an object of a frame, nor moved to another window on the way).
      for (const AccessSite* m : family.members) {
        std::unordered_set<std::string> seen;
        if (!carriesBaseMetadata(m->addressRegister, family.baseDef, seen)) return;
      }
      std::vector<std::string> extremes;
      for (const AddressFamily::Extreme& e : family.extremes)
        extremes.push_back(addressAgain(*e.access, e.recomputed, code));
      code += regionFamilyTest(fc_.regs, fc_.regs.q(1), meta_.at(pa_.defs()[family.baseDef].reg), extremes,
                               fc_.offsetOf(first), first.access.size);
    }
    FunctionChecks::RegionTest& region = fc_.regionTest(family.region->from, family.region->to);
    region.test += code;
    size_t index = &region - fc_.regionTests.data();
    for (const AccessSite* m : family.members) regionOfMember_[m] = index;
    fc_.unit.stats.guardedFamilyChecks += family.members.size();
  }

  // Whether every definition of `reg`, back to base definition `base`, moves the metadata
  // unchanged (copyMetadata, or a select of two such), so that the base's metadata is `reg`'s.
  bool carriesBaseMetadata(const std::string& reg, size_t base, std::unordered_set<std::string>& seen) const {
    if (!seen.insert(reg).second) return true;
    for (size_t i = 0; i < pa_.defs().size(); ++i) {
      const PointerDef& d = pa_.defs()[i];
      if (d.reg != reg || i == base) continue;
      if (d.kind == DefKind::Derived && plainCopies_.count(i)) {
        if (!carriesBaseMetadata(d.sources[0], base, seen)) return false;
      } else if (d.kind == DefKind::Select && !d.sources[0].empty() && !d.sources[1].empty()) {
        if (!carriesBaseMetadata(d.sources[0], base, seen) || !carriesBaseMetadata(d.sources[1], base, seen))
          return false;
      } else {
        return false;
      }
    }
    return true;
  }

  // A family's checks (analysis/AddressFamilies.h): its extremes (the lowest and the highest
  // address; in two constants, the corners) checked before its first access, each as that access (its site, in a report), after the statements
  // that make the address run again there into registers of their own where it is made later;
  // every member then goes through its untagged pointer. The members share one base, whose
  // metadata the first member's address register holds.
  void checkFamily(const AddressFamily& family) {
    Function& f = fc_.function;
    const AccessSite& first = *family.members.front();
    std::string code;
    auto addressOf = [&](const AccessSite& e, const std::vector<size_t>& statements) {
      return addressAgain(e, statements, code);
    };
    auto checkAt = [&](const AccessSite& e, const std::string& pointer) {
      Site site = siteOf(e);
      CheckSite c = fc_.checkSite(e, site);
      c.pointer = pointer;
      c.untagged = freshUntagged();
      CheckCode checked = safetyCheck(fc_.regs, meta_.at(first.addressRegister), c, "", false);
      code += checked.inlined;
      fc_.outOfLine += checked.outOfLine;
      fc_.addSite(std::move(site), e);
    };
    for (const AddressFamily::Extreme& e : family.extremes) checkAt(*e.access, addressOf(*e.access, e.recomputed));
    fc_.edits.before[first.statement] += code;
    for (const AccessSite* m : family.members) {
      throughUntagged(m->statement, std::get<Instruction>(f.body[m->statement]).operands[m->access.addressOperand]);
      if (std::none_of(family.extremes.begin(), family.extremes.end(),
                       [&](const AddressFamily::Extreme& e) { return e.access == m; }))
        fc_.addFamilyMember(*m);
    }
  }

  // A register of its own for an untagged pointer (%__cc_a<i>).
  std::string freshUntagged() { return fmt::format("{}a{}", kMetaPrefix, untaggedCount_++); }
  // Address operand `o` of statement `statement` goes through an untagged copy of its register,
  // made just before the statement.
  void throughUntagged(size_t statement, Operand& o) {
    std::string untagged = freshUntagged();
    fc_.edits.before[statement] += untagPointer(untagged, o.text);
    o.text = untagged;
  }
  void declareUntagged() {
    if (untaggedCount_) fc_.declarations += fmt::format(".reg .b64 {}a<{}>;\n", kMetaPrefix, untaggedCount_);
  }

  // [sym+offset] into a module variable of known size, entirely inside it, or a generic access
  // into the function's own frame inside the object it is made from (provenInOwnFrame): no
  // runtime check is needed.
  bool staticallyInBounds(const AccessSite& a) const {
    if (provenInOwnFrame(a)) return true;
    if (a.addressSymbol.empty() || !a.access.uncheckable.empty() || a.access.size == 0) return false;
    if (a.access.space != Space::Global && a.access.space != Space::Generic && a.access.space != Space::Const)
      return false;
    uint64_t bytes = staticBytes(symbols_, a.addressSymbol);
    if (bytes == 0) return false;
    int64_t offset = std::get<Instruction>(fc_.function.body[a.statement]).operands[a.access.addressOperand].value;
    return offset >= 0 && static_cast<uint64_t>(offset) + a.access.size <= bytes;
  }

  // A generic access whose address is this function's frame made generic (a debug build's %SP)
  // plus terms ValueRanges bounds, all of its bytes inside the object its bounds would be: the
  // array it is made from where the frame's arrays are told apart, else the frame. The frame
  // is live while the function runs, so the check could not fail (a debug build's accesses at
  // constant offsets, as LocalChecks proves the optimized build's `.local` ones).
  bool provenInOwnFrame(const AccessSite& a) const {
    if (a.access.space != Space::Generic || a.addressRegister.empty() || a.access.size == 0 ||
        !a.access.uncheckable.empty() || a.access.extent)
      return false;
    auto from = fc_.ranges.firstByteOffsets(a);
    if (!from || !localVariable(symbols_, from->first)) return false;
    int64_t begin = 0, end = static_cast<int64_t>(symbols_.at(from->first).size);
    if (std::optional<LocalObject> o = fc_.frames ? fc_.frames->objectOf(a) : std::nullopt) {
      begin = static_cast<int64_t>(o->start);
      end = static_cast<int64_t>(o->start + o->size);
    } else if (fc_.frames && fc_.frames->reachedByStart(a.addressRegister)) {
      return false;  // (the bounds may be an array's, which of them only the run knows)
    }
    return from->second.lo >= begin && from->second.hi + static_cast<int64_t>(a.access.size) <= end;
  }

  // The module variable whose symbol every base reaching `a` was made from (its static bounds
  // are what the access is checked against), or "".
  std::string moduleVariable(const AccessSite& a) const {
    std::string symbol = pa_.symbolOfEveryBase(a);
    return staticBytes(symbols_, symbol) || sharedVariable(symbol) || localVariable(symbols_, symbol) ? symbol
                                                                                                   : std::string();
  }

  const SymbolInfo* sharedVariable(const std::string& symbol) const {
    return analysis::sharedVariable(symbols_, symbol);
  }

  // Every value `reg` may hold is made from a variable of `space` with known bounds (moved by
  // arithmetic, copies, selects, zero-extension): its metadata then is that variable's, in
  // the window's addresses, on every path that defines it. (Flow-insensitive: every definition
  // of every register it is made from, reaching or not.)
  bool onlyVariablesOf(Space space, const std::string& reg) const {
    return pa_.madeOnlyFromSymbols(reg, [&](const std::string& symbol) {
      auto it = symbols_.find(symbol);
      if (it == symbols_.end() || it->second.space != space) return false;
      return space == Space::Shared  ? sharedVariable(symbol) != nullptr
             : space == Space::Local ? localVariable(symbols_, symbol) != nullptr
                                     : staticBytes(symbols_, symbol) != 0;
    });
  }

  // Every value `reg` may hold is a generic pointer whose metadata is a variable's of `space`
  // (shared or local), in generic addresses: made by cvta from such a variable's address
  // (onlyVariablesOf), or by mapa (shared), copies and selects from such pointers.
  bool variableMetadata(const std::string& reg, Space space) const {
    std::unordered_set<std::string> seen;
    std::vector<std::string> work{reg};
    while (!work.empty()) {
      std::string r = work.back();
      work.pop_back();
      if (!seen.insert(r).second) continue;
      bool defined = false;
      for (const auto& d : pa_.defs()) {
        if (d.reg != r) continue;
        defined = true;
        if (d.kind == DefKind::Derived && d.spaceFromCvta && d.mapaRank.empty()) {
          if (!(d.cvtaToGeneric && d.space == space && onlyVariablesOf(space, d.sources[0]))) return false;
        } else if (d.kind == DefKind::Derived || d.kind == DefKind::Select) {
          for (const auto& s : d.sources) {
            if (s.empty()) return false;
            work.push_back(s);
          }
        } else {
          return false;
        }
      }
      if (!defined) return false;
    }
    return true;
  }

  // Scratch registers holding "unknown" metadata for a select with a non-register operand.
  MetadataRegs unknownRegs() const { return {fc_.regs.t(6), fc_.regs.t(7), fc_.regs.u(1)}; }

  FunctionChecks& fc_;
  const PointerAnalysis& pa_;
  const SymbolTable& symbols_;
  std::unordered_map<std::string, MetadataRegs> meta_;
  // Registers some definition of which gives them unknown metadata.
  std::unordered_set<std::string> mayBeUnknown_;
  size_t untaggedCount_ = 0;
  size_t loopCount_ = 0;
  std::vector<std::string> recomputedTypes_;  // of the registers a family's address is made again in (%__cc_fam<i>)
  // The members of families across guards: their region's index in FunctionChecks::regionTests.
  std::unordered_map<const AccessSite*, size_t> regionOfMember_;
  // The Derived definitions (indices into defs()) whose metadata is their source's, copied.
  std::unordered_set<size_t> plainCopies_;
  // The bounds a local-window pointer of unknown origin gets (none where it is not known how far
  // down live frames reach, analysis::liveLocalBound).
  LiveFrames liveFrames_;
};

}  // namespace

void checkGlobalAccesses(FunctionChecks& f) { GlobalChecks(f).run(); }

}  // namespace cucatch::instrument
