#include "instrument/SharedChecks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/LaunchBounds.h"
#include "analysis/SharedParts.h"
#include "analysis/ValueRange.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

constexpr const char* kBoundsPrefix = "%__cc_s";
constexpr const char* kPartPrefix = "%__cc_p";     // part bounds (lo, size), set at kernel entry
constexpr const char* kUniformPrefix = "%__cc_w";  // uniform registers recomputed at kernel entry

class SharedChecks {
 public:
  explicit SharedChecks(FunctionChecks& f)
      : fc_(f), pa_(f.analysis), symbols_(f.symbols), ranges_(f.ranges) {}

  void run() {
    Stats& stats = fc_.unit.stats;
    if (fc_.options.dynamicSharedParts) parts_.emplace(fc_.function, fc_.cfg, pa_, symbols_);
    std::vector<const AccessSite*> checked;
    std::unordered_set<std::string> relevant;
    for (const auto& a : pa_.accesses()) {
      if (a.access.space != Space::Shared && a.access.space != Space::SharedCluster) continue;
      if (staticallyInBounds(a)) {
        ++stats.provenInBounds;
        continue;
      }
      std::string_view why = uncheckedReason(a);
      if (!why.empty()) {
        ++stats.unchecked[std::string(why)];
        continue;
      }
      if (std::optional<LaunchCondition> when = launchProof(a)) {
        if (when->empty()) {  // every launch
          ++stats.provenInBounds;
          continue;
        }
        launchProven_.insert(a.statement);
        launchCondition_.insert(when->begin(), when->end());
      }
      checked.push_back(&a);
      if (!passedBoundsOf(a).empty()) ++stats.sharedPassedAccesses;
      else if (!reachedByObject(a)) ++stats.sharedWindowAccesses;
      if (!a.addressRegister.empty()) relevant.insert(a.addressRegister);
      if (a.reachingDefs.size() > 1) ++stats.phiAccesses;
      if (object(a).dynamicShared) ++(partOf(a) ? stats.dynamicSharedParts : stats.dynamicSharedWhole);
    }
    if (checked.empty()) return;
    if (parts_ && !parts_->symbol().empty()) fc_.entry += partBounds();
    relevant = pa_.withSources(std::move(relevant));
    std::vector<std::string> ordered(relevant.begin(), relevant.end());
    std::sort(ordered.begin(), ordered.end());
    for (size_t i = 0; i < ordered.size(); ++i)
      bounds_[ordered[i]] = {fmt::format("{}{}", kBoundsPrefix, 2 * i), fmt::format("{}{}", kBoundsPrefix, 2 * i + 1)};

    Function& f = fc_.function;
    auto& after = fc_.edits.after;
    // Bounds follow every definition of a relevant register.
    for (const auto& d : pa_.defs()) {
      if (!relevant.count(d.reg)) continue;
      const auto& in = std::get<Instruction>(f.body[d.statement]);
      std::string g = in.guard ? guardPrefix(in.guard->predicate, in.guard->negated) : "";
      const SharedBoundsRegs& to = bounds_.at(d.reg);
      switch (d.kind) {
        case DefKind::Derived:
          // A cvta from the generic space (`__cvta_generic_to_shared`) makes a shared address
          // of unknown origin, bounded by the window; one to another window makes an address
          // no shared bounds describe.
          if (!d.mapaRank.empty())
            after[d.statement] += d.mapaRank == d.reg  // (the rank is gone once the mapa has run)
                                      ? unknownSharedBounds(to, g)
                                      : mapaSharedBounds(fc_.regs, to, bounds_.at(d.sources[0]), d.mapaRank,
                                                         in.guard ? in.guard->predicate : "",
                                                         in.guard && in.guard->negated);
          else if (!d.spaceFromCvta)
            after[d.statement] += copySharedBounds(to, bounds_.at(d.sources[0]), g);
          else if (d.space == Space::Shared && !d.cvtaToGeneric)
            after[d.statement] += windowOrUnknownBounds(to, g);
          else
            after[d.statement] += unknownSharedBounds(to, g);
          break;
        case DefKind::Select: {
          SharedBoundsRegs unknown{fc_.regs.u(4), fc_.regs.u(5)};
          const SharedBoundsRegs& a = d.sources[0].empty() ? unknown : bounds_.at(d.sources[0]);
          const SharedBoundsRegs& b = d.sources[1].empty() ? unknown : bounds_.at(d.sources[1]);
          if (d.sources[0].empty() || d.sources[1].empty()) after[d.statement] += unknownSharedBounds(unknown, "");
          after[d.statement] += selectSharedBounds(to, a, b, printOperand(in.operands.at(3)), g);
          break;
        }
        case DefKind::Base:
          if (std::vector<std::string> passed = passedBounds(d); !passed.empty())
            after[d.statement] += passedSharedBounds(fc_.regs, to, passed[0], passed[1],
                                                     windowOrUnknownBounds(to, guardPrefix(fc_.regs.q(2), true)));
          else
            after[d.statement] += objectBounds(to, d.origin == BaseOrigin::Symbol ? d.symbol : std::string(), g);
          break;
        case DefKind::Integer:
          after[d.statement] += windowOrUnknownBounds(to, g);
          break;
      }
    }
    // An access whose range a dominating check covered needs nothing (shared addresses carry no
    // tag to strip).
    std::vector<bool> dominated = fc_.dominatedByCheck(checked);
    std::vector<const AccessSite*> own;
    for (size_t i = 0; i < checked.size(); ++i) {
      if (dominated[i])
        fc_.addDominated(*checked[i]);
      else
        own.push_back(checked[i]);
    }
    for (const auto& group : fc_.coalescedGroups(own)) {
      const AccessSite& first = *group.front();
      if (group.size() == 1) {
        add(first, check(first));
        continue;
      }
      bool allProven = std::all_of(group.begin(), group.end(),
                                   [&](const AccessSite* a) { return launchProven_.count(a->statement) != 0; });
      // One range check; the group's own checks only where it fails (they report the first
      // access out of bounds, in program order).
      CheckCode groupChecks;
      for (const AccessSite* a : group) groupChecks += check(*a);
      auto [lowest, span] = fc_.rangeOf(group);
      const auto& in = std::get<Instruction>(f.body[first.statement]);
      std::string slowLabel = fc_.newLabel("slow");
      if (allProven) fc_.launchVersion.provenBranches.insert(slowLabel);
      add(first, sharedRangeCheck(fc_.regs, boundsOf(first), first.addressRegister, lowest, span,
                                  in.guard ? in.guard->predicate : "", in.guard && in.guard->negated, groupChecks,
                                  slowLabel, fc_.newLabel()));
      stats.coalescedChecks += group.size() - 1;
    }
    if (!launchProven_.empty()) {
      // (Every set of bounds evaluates terms over the same launches.)
      fc_.launchVersion.condition = launchBounds_.begin()->second.weakestTerms(launchCondition_);
      stats.launchProvenChecks += launchProven_.size();
    }
    if (!ordered.empty()) fc_.declarations += fmt::format(".reg .b32 {}<{}>;\n", kBoundsPrefix, 2 * ordered.size());
    // Registers reached by "no definition" on some path start out unknown.
    for (const auto& r : ordered) fc_.entry += unknownSharedBounds(bounds_.at(r), "");
  }

 private:
  void add(const AccessSite& a, const CheckCode& code) {
    fc_.edits.before[a.statement] += code.inlined;
    fc_.outOfLine += code.outOfLine;
  }

  // The check of one access, and its site.
  CheckCode check(const AccessSite& a) {
    auto& in = std::get<Instruction>(fc_.function.body[a.statement]);
    Site site = fc_.newSite(a);
    std::string boundsText;
    SharedBoundsRegs bounds;
    if (a.addressSymbol.empty() || partOf(a)) {
      bounds = boundsOf(a);
    } else {
      // [symbol+offset] outside the symbol's static bounds (or into dynamic shared memory):
      // checked against the symbol, its bounds made in scratch registers.
      bounds = {fc_.regs.u(4), fc_.regs.u(5)};
      boundsText = objectBounds(bounds, a.addressSymbol, "");
    }
    if (std::string variable = objectName(a); !variable.empty()) {
      const SymbolInfo& info = symbols_.at(variable);
      site.object = variable;
      site.objectBytes = info.size;
      site.objectSpace = "shared";
      site.objectDynamic = info.dynamicShared;
      site.objectPart = partOf(a).has_value();
    }
    CheckSite c = fc_.checkSite(a, site);
    if (std::vector<std::string> passed = a.addressSymbol.empty() ? passedBoundsOf(a) : std::vector<std::string>{};
        !passed.empty()) {
      c.metaBaseParam = passed[0];
      c.metaParam = passed[2];
    }
    c.sharedWindow = a.addressSymbol.empty() && !reachedByObject(a) && c.metaParam.empty();
    if (partOf(a)) c.partStart = partStarts_.at(*partOf(a));
    c.lanes = a.access.lanes;
    CheckCode code = sharedCheck(fc_.regs, bounds, c, in.guard ? in.guard->predicate : "", in.guard && in.guard->negated);
    if (launchProven_.count(a.statement)) fc_.launchVersion.provenBranches.insert(c.label);
    code.inlined.insert(0, boundsText);
    fc_.addSite(std::move(site), a);
    return code;
  }

  const SymbolInfo* sharedVariable(const std::string& symbol) const {
    return analysis::sharedVariable(symbols_, symbol);
  }

  std::string objectBounds(const SharedBoundsRegs& to, const std::string& symbol, const std::string& g) {
    const SymbolInfo* v = symbol.empty() ? nullptr : sharedVariable(symbol);
    if (!v) return windowOrUnknownBounds(to, g);
    return sharedBounds(to, symbol, v->dynamicShared ? "%dynamic_smem_size" : std::to_string(v->size), g);
  }

  // The part of the carved dynamic shared memory `a` addresses (0: the first), if parts are
  // checked (--shared-parts) and the kernel carves it.
  std::optional<size_t> partOf(const AccessSite& a) const {
    if (!parts_ || parts_->symbol().empty()) return std::nullopt;
    if (!a.addressSymbol.empty()) return a.addressSymbol == parts_->symbol() ? std::optional<size_t>(0) : std::nullopt;
    return parts_->partOf(a.statement);
  }

  // The bounds `a` is checked against: its part's, or those that came with its address.
  const SharedBoundsRegs& boundsOf(const AccessSite& a) const {
    if (auto part = partOf(a)) return partChecks_.at(*part);
    return bounds_.at(a.addressRegister);
  }

  // Kernel entry: the uniform registers the parts start at, recomputed (their definitions,
  // renamed), then each part's bounds: it starts at the symbol plus its uniform terms (held
  // inside the region), and ends where the next part starts, or with the region. An access to
  // a part is checked from the region's start to the part's end: nvcc reassociates an address
  // into one part as another part's start minus an index (d[blockDim.x - 1 - t] became
  // (d + blockDim.x) + ((8 t) xor -8) next to a part starting at d + blockDim.x), so what is
  // below a part's start is not known to be outside it; past its end is.
  std::string partBounds() {
    const Function& f = fc_.function;
    const RegisterFile& regs = pa_.registers();
    std::unordered_map<std::string, std::string> renamed;
    std::string s;
    for (size_t statement : parts_->entryDefinitions()) {
      Instruction in = std::get<Instruction>(f.body[statement]);
      const std::string reg = in.operands[0].text;
      std::string to = fmt::format("{}{}", kUniformPrefix, renamed.size());
      fc_.declarations += fmt::format(".reg {} {};\n", regs.type(reg), to);
      for (size_t k = 1; k < in.operands.size(); ++k)
        if (auto it = renamed.find(in.operands[k].text); in.operands[k].kind == OperandKind::Name && it != renamed.end())
          in.operands[k].text = it->second;
      in.operands[0].text = to;
      renamed[reg] = to;
      s += printStatement(in) + "\n";
    }
    const std::string& symbol = parts_->symbol();
    size_t n = parts_->starts().size() + 1;
    std::vector<SharedBoundsRegs> partBounds;  // (start, end until it is a size from the region's start)
    for (size_t i = 0; i < n; ++i) {
      partBounds.push_back({fmt::format("{}{}", kPartPrefix, 2 * i), fmt::format("{}{}", kPartPrefix, 2 * i + 1)});
      partChecks_.push_back({partBounds[0].base, partBounds[i].size});
      partStarts_.push_back(partBounds[i].base);
    }
    fc_.declarations += fmt::format(".reg .b32 {}<{}>;\n", kPartPrefix, 2 * n);
    const std::string end = fc_.regs.u(4);
    s += fmt::format("mov.u32 {lo}, {sym};\nmov.u32 {end}, %dynamic_smem_size;\nadd.u32 {end}, {end}, {lo};\n",
                     fmt::arg("lo", partBounds[0].base), fmt::arg("sym", symbol), fmt::arg("end", end));
    for (size_t i = 1; i < n; ++i) {
      const std::string& lo = partBounds[i].base;
      s += fmt::format("mov.u32 {}, {};\n", lo, symbol);
      for (const auto& [reg, coefficient] : parts_->starts()[i - 1])
        s += fmt::format("mad.lo.u32 {lo}, {w}, {c}, {lo};\n", fmt::arg("lo", lo), fmt::arg("w", renamed.at(reg)),
                         fmt::arg("c", static_cast<int32_t>(static_cast<uint32_t>(coefficient))));
      s += fmt::format("max.u32 {lo}, {lo}, {first};\nmin.u32 {lo}, {lo}, {end};\n", fmt::arg("lo", lo),
                       fmt::arg("first", partBounds[0].base), fmt::arg("end", end));
    }
    const std::string p = fc_.regs.q(0), q = fc_.regs.q(1);
    for (size_t i = 0; i < n; ++i) {
      const SharedBoundsRegs& b = partBounds[i];
      s += fmt::format("mov.u32 {}, {};\n", b.size, end);
      // (Part 0 starts where the region does: no part ends at it.)
      for (size_t j = 1; j < n; ++j) {
        if (j == i) continue;
        s += fmt::format(
            "setp.gt.u32 {p}, {lj}, {li};\nsetp.lt.u32 {q}, {lj}, {hi};\nand.pred {p}, {p}, {q};\n"
            "selp.b32 {hi}, {lj}, {hi}, {p};\n",
            fmt::arg("p", p), fmt::arg("q", q), fmt::arg("lj", partBounds[j].base), fmt::arg("li", b.base),
            fmt::arg("hi", b.size));
      }
      s += fmt::format("sub.u32 {s}, {s}, {region};\n", fmt::arg("s", b.size), fmt::arg("region", partBounds[0].base));
    }
    return s;
  }

  // A 32-bit shared address not made from a variable: bounded by the block's shared window
  // where the module's PTX can tell it (sharedWindowBounds), else unknown (passes).
  std::string windowOrUnknownBounds(const SharedBoundsRegs& to, const std::string& g) {
    if (!fc_.options.sharedWindowKnown) return unknownSharedBounds(to, g);
    fc_.useSharedWindow(fc_.options.dynamicShared);
    return sharedWindowBounds(to, fc_.options.dynamicShared, fc_.regs.q(3), g);
  }

  // The shared variable every base reaching `a` is made from, or "".
  std::string objectName(const AccessSite& a) const {
    std::string symbol = a.addressSymbol.empty() ? pa_.symbolOfEveryBase(a) : a.addressSymbol;
    return sharedVariable(symbol) ? symbol : std::string();
  }
  SymbolInfo object(const AccessSite& a) const {
    std::string name = objectName(a);
    return name.empty() ? SymbolInfo{} : symbols_.at(name);
  }

  // Every base reaching `a`, on every path, is a shared variable's symbol.
  bool reachedOnlyByObjects(const AccessSite& a) const {
    if (a.reachedByUndefined || a.reachingDefs.empty()) return false;
    for (size_t d : a.reachingDefs) {
      const PointerDef& def = pa_.defs()[d];
      if (def.kind != DefKind::Base || def.origin != BaseOrigin::Symbol || !sharedVariable(def.symbol)) return false;
    }
    return true;
  }

  // Some base reaching `a` is a shared variable's symbol (the others, if any, pass unchecked).
  // The metadata parameters (base, size, word) of the pointer parameter `d` converts to a shared
  // address itself, where the function's callers pass them (MetadataParams); else none.
  std::vector<std::string> passedBounds(const PointerDef& d) const {
    std::optional<size_t> parameter = pa_.sharedAddressOfParameter(fc_.function, d);
    return parameter ? fc_.passedMetadata(pa_.defs()[*parameter]) : std::vector<std::string>{};
  }

  // Where every definition reaching `a` is such a conversion of one parameter: that parameter's
  // metadata parameters (the record reports the word its callers pass, which names the variable).
  std::vector<std::string> passedBoundsOf(const AccessSite& a) const {
    if (a.reachingDefs.empty() || a.reachedByUndefined) return {};
    std::vector<std::string> params;
    for (size_t d : a.reachingDefs) {
      std::vector<std::string> passed = passedBounds(pa_.defs()[d]);
      if (passed.empty() || (!params.empty() && params != passed)) return {};
      params = std::move(passed);
    }
    return params;
  }

  bool reachedByObject(const AccessSite& a) const {
    for (size_t d : a.reachingDefs) {
      const PointerDef& def = pa_.defs()[d];
      if (def.kind == DefKind::Base && def.origin == BaseOrigin::Symbol && sharedVariable(def.symbol)) return true;
    }
    return false;
  }

  // [symbol+offset] inside a static array, or an address that is the array's symbol plus terms
  // whose ranges keep every access inside it (a masked index: `bins[k & 255]`).
  bool staticallyInBounds(const AccessSite& a) const {
    if (!a.access.uncheckable.empty() || a.access.size == 0) return false;
    if (a.addressSymbol.empty() && (a.addressRegister.empty() || !pa_.registers().is32Bit(a.addressRegister)))
      return false;
    auto from = ranges_.firstByteOffsets(a);
    if (!from) return false;
    const SymbolInfo* v = sharedVariable(from->first);
    if (!v || v->dynamicShared) return false;
    return from->second.lo >= 0 && static_cast<uint64_t>(from->second.hi) + a.access.size <= v->size;
  }

  // The condition on the launch under which `a` is inside the variable its check bounds it by
  // (analysis/LaunchBounds.h; empty: every launch), where the kernel may have a second version
  // (LaunchVersions.h) and the check's bounds are the variable's: every base reaching it is the
  // variable's symbol (not a part of it, not bounds passed by a caller).
  // Elsewhere only a proof for every launch counts.
  std::optional<LaunchCondition> launchProof(const AccessSite& a) {
    if (!fc_.options.launchVersions || partOf(a)) return std::nullopt;
    if (a.addressSymbol.empty() && (!reachedOnlyByObjects(a) || !passedBoundsOf(a).empty())) return std::nullopt;
    std::string variable = objectName(a);
    if (variable.empty()) return std::nullopt;
    if (!threadGuards_) {
      threadGuards_.emplace(fc_.function, fc_.cfg, pa_);
      versionable_ = versionable(fc_.function);
    }
    // The bounds for the threads that make the access: where a branch on the way bounds the
    // thread's index (a halo loaded by a few threads), those threads'.
    ThreadLimits limits = threadGuards_->at(a.statement);
    auto it = launchBounds_.find(limits);
    if (it == launchBounds_.end()) it = launchBounds_.try_emplace(limits, fc_.function, pa_, symbols_, limits).first;
    const LaunchBounds* bounds = &it->second;
    std::optional<LaunchCondition> when = bounds->inBoundsWhen(a, variable);
    if (!when || when->empty()) return when;
    // Only a condition a launch of a warp or more can meet is worth a copy of the body.
    if (!versionable_ || !std::all_of(when->begin(), when->end(), [&](const LaunchAffine& t) { return bounds->plausible(t); }))
      return std::nullopt;
    return when;
  }

  std::string_view uncheckedReason(const AccessSite& a) const {
    if (!a.access.uncheckable.empty()) return a.access.uncheckable;
    // Another block's shared memory: only through an address made from a variable (possibly
    // moved there by mapa) on every path; the window's bounds are this block's.
    if (a.access.space == Space::SharedCluster && !reachedOnlyByObjects(a))
      return "distributed shared memory (shared::cluster) through an address not made from a shared variable";
    if (!a.addressSymbol.empty())
      return sharedVariable(a.addressSymbol) ? "" : "[symbol+offset] of a shared variable of unknown size";
    if (a.addressRegister.empty()) return "absolute or computed shared address";
    if (!pa_.registers().is32Bit(a.addressRegister)) return "64-bit shared-space address register";
    if (!reachedByObject(a) && !fc_.options.sharedWindowKnown)
      return "shared address of unknown origin (not made from a shared variable's symbol; PTX before 4.1 cannot "
             "bound it by the shared window)";
    return {};
  }

  FunctionChecks& fc_;
  const PointerAnalysis& pa_;
  const SymbolTable& symbols_;
  const ValueRanges& ranges_;
  std::unordered_map<std::string, SharedBoundsRegs> bounds_;
  std::optional<DynamicSharedParts> parts_;  // with --shared-parts
  std::vector<SharedBoundsRegs> partChecks_;  // part 0, 1, ...: (the region's start, to the part's end)
  std::vector<std::string> partStarts_;       // part 0, 1, ...: where it starts, for the report
  // Made where first asked (launchProof): the branches that bound thread indices, whether the
  // function may be versioned, and the bounds for each set of threads a branch bounds.
  std::optional<ThreadGuards> threadGuards_;
  bool versionable_ = false;
  std::map<ThreadLimits, LaunchBounds> launchBounds_;
  std::unordered_set<size_t> launchProven_;  // statements of accesses proven under launchCondition_
  LaunchCondition launchCondition_;
};

}  // namespace

void checkSharedAccesses(FunctionChecks& f) { SharedChecks(f).run(); }

}  // namespace cucatch::instrument
