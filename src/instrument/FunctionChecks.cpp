#include "instrument/FunctionChecks.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <stdexcept>

#include "ptx/InstrInfo.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {
constexpr const char* kReservedPrefix = "%__cc";
}

unsigned accessFlags(AccessKind k) {
  switch (k) {
    case AccessKind::Read: return abi::kAccessRead;
    case AccessKind::Write: return abi::kAccessWrite;
    case AccessKind::Atomic: return abi::kAccessAtomic;
  }
  return 0;
}

FunctionChecks::FunctionChecks(Function& f, const SymbolTable& moduleSymbols, UnitResult& result,
                               const CheckOptions& checkOptions)
    : function(f),
      symbols(functionSymbols(f, moduleSymbols)),
      cfg(f),
      analysis(f, cfg, symbols),
      unit(result),
      options(checkOptions),
      ranges(f, analysis),
      frames(checkOptions.localObjects ? std::make_optional<FrameLayout>(f, analysis, symbols, ranges) : std::nullopt) {
  if (analysis.registers().usesPrefix(kReservedPrefix))
    throw std::runtime_error(fmt::format("function '{}' already declares registers named {}*: "
                                         "it was instrumented before, or uses cucatch's reserved names",
                                         f.name, kReservedPrefix));
  places_ = sourcePlaces(f);
  if (frames) {
    unit.stats.localFramesKeptWhole += frames->keptWhole().size();
    for (const auto& [frame, starts] : frames->starts())
      if (!frames->keptWhole().count(frame)) unit.frameArrayStarts[f.name][frame] = starts;
  }
}

Site FunctionChecks::newSite(const AccessSite& a) const {
  Site s = siteAt(function, a.statement, places_[a.statement], static_cast<uint32_t>(unit.sites.size()));
  s.kind = accessKindName(a.access.kind);
  s.size = a.access.size;
  s.space = spaceName(a.access.space);
  return s;
}

CheckSite FunctionChecks::checkSite(const AccessSite& a, const Site& site) {
  CheckSite c;
  c.site = site.id;
  c.pointer = a.addressRegister.empty() ? a.addressSymbol : a.addressRegister;
  c.offset = offsetOf(a);
  c.size = a.access.size;
  c.accessFlags = accessFlags(a.access.kind);
  c.label = newLabel("fail");
  return c;
}

void FunctionChecks::addSite(Site site, const AccessSite& a) {
  ++unit.stats.instrumented[fmt::format("{} {}", spaceName(a.access.space), accessKindName(a.access.kind))];
  unit.sites.push_back(std::move(site));
  ++checks_;
}

void FunctionChecks::addDominated(const AccessSite& a) {
  ++unit.stats.instrumented[fmt::format("{} {}", spaceName(a.access.space), accessKindName(a.access.kind))];
  ++unit.stats.dominatedChecks;
}

void FunctionChecks::addFamilyMember(const AccessSite& a) {
  ++unit.stats.instrumented[fmt::format("{} {}", spaceName(a.access.space), accessKindName(a.access.kind))];
  ++unit.stats.familyChecks;
}

int64_t FunctionChecks::offsetOf(const AccessSite& a) const {
  return std::get<Instruction>(function.body[a.statement]).operands[a.access.addressOperand].value;
}

FunctionChecks::GroupRange FunctionChecks::rangeOf(const std::vector<const AccessSite*>& group) const {
  int64_t lowest = INT64_MAX, end = INT64_MIN;
  for (const AccessSite* a : group) {
    lowest = std::min(lowest, offsetOf(*a));
    end = std::max(end, offsetOf(*a) + static_cast<int64_t>(a->access.size));
  }
  return {lowest, static_cast<uint64_t>(end - lowest)};
}

std::vector<std::vector<const AccessSite*>> FunctionChecks::coalescedGroups(
    const std::vector<const AccessSite*>& checked) const {
  std::vector<std::vector<const AccessSite*>> groups;
  if (!options.coalesce) {
    for (const AccessSite* a : checked) groups.push_back({a});
    return groups;
  }
  std::vector<bool> blockStart(function.body.size() + 1, false);
  for (const auto& b : cfg.blocks()) blockStart[b.first] = true;
  std::map<std::pair<std::string, std::string>, size_t> open;  // (register, guard) -> group
  size_t k = 0;
  for (size_t i = 0; i < function.body.size() && k < checked.size(); ++i) {
    if (blockStart[i]) open.clear();
    const auto* in = std::get_if<Instruction>(&function.body[i]);
    for (; k < checked.size() && checked[k]->statement == i; ++k) {
      const AccessSite* a = checked[k];
      if (a->addressRegister.empty() || a->access.lanes) {
        groups.push_back({a});
        continue;
      }
      std::string guard = in->guard ? in->guard->predicate : "";
      auto key = std::make_pair(a->addressRegister, (in->guard && in->guard->negated ? "!" : "") + guard);
      if (auto it = open.find(key); it != open.end()) {
        groups[it->second].push_back(a);
      } else {
        open[key] = groups.size();
        groups.push_back({a});
      }
    }
    if (!in) continue;
    if (mayNotComeBack(*in)) {
      open.clear();
      continue;
    }
    forEachDefinedRegister(*in, [&](const std::string& reg) {
      std::erase_if(open, [&](const auto& e) {
        const auto& [r, g] = e.first;
        return r == reg || g == reg || g == "!" + reg;
      });
    });
  }
  return groups;
}

namespace {

// Does statement `in` break what a dominating check established: a call (the memory may be freed
// there), or a new value of `reg` or of `guard`?
bool invalidates(const Instruction& in, const std::string& reg, const std::string& guard) {
  if (in.opcode == "call") return true;
  bool defines = false;
  forEachDefinedRegister(in, [&](const std::string& r) { defines |= r == reg || (!guard.empty() && r == guard); });
  return defines;
}

}  // namespace

std::vector<bool> FunctionChecks::dominatedByCheck(const std::vector<const AccessSite*>& checked) const {
  std::vector<bool> covered(checked.size(), false);
  if (!options.removeDominated) return covered;
  auto guardOf = [&](const AccessSite& a) -> std::pair<std::string, bool> {
    const auto& in = std::get<Instruction>(function.body[a.statement]);
    return in.guard ? std::make_pair(in.guard->predicate, in.guard->negated) : std::make_pair(std::string(), false);
  };
  // No statement on a path from `b` to any run of `a` (not through b again) invalidates b's
  // check. Blocks are straight-line: a path that enters b's block again runs b
  // before anything after it. One that enters a's block reaches a first, but where a can be
  // reached again from there without b (a loop b is not in), what follows a is on such a path
  // too.
  auto clearBetween = [&](const AccessSite& b, const AccessSite& a, const std::string& guard) {
    const std::string& reg = b.addressRegister;
    auto clear = [&](size_t from, size_t to) {  // statements [from, to)
      for (size_t i = from; i < to; ++i)
        if (const auto* in = std::get_if<Instruction>(&function.body[i]); in && invalidates(*in, reg, guard))
          return false;
      return true;
    };
    // (From b itself: an access that loads its own address register, `ld.u64 %rd4, [%rd4]`,
    // leaves a new pointer there, which its check did not cover: a review's find.)
    size_t bb = cfg.blockOf(b.statement), ab = cfg.blockOf(a.statement);
    if (bb == ab) return b.statement < a.statement && clear(b.statement, a.statement);
    if (!clear(b.statement, cfg.blocks()[bb].last)) return false;
    // Only blocks on a path to a's block matter: those it is reached from (not through b's).
    std::vector<bool> toA(cfg.blocks().size(), false);
    std::vector<size_t> work{ab};
    while (!work.empty()) {
      size_t x = work.back();
      work.pop_back();
      if (toA[x]) continue;
      toA[x] = true;
      if (x != bb) work.insert(work.end(), cfg.blocks()[x].predecessors.begin(), cfg.blocks()[x].predecessors.end());
    }
    std::vector<bool> seen(cfg.blocks().size(), false);
    work = cfg.blocks()[bb].successors;
    while (!work.empty()) {
      size_t x = work.back();
      work.pop_back();
      if (x == bb || seen[x] || !toA[x]) continue;
      seen[x] = true;
      const BasicBlock& block = cfg.blocks()[x];
      if (x == ab) {
        if (!clear(block.first, a.statement)) return false;
        bool again = std::any_of(block.successors.begin(), block.successors.end(),
                                 [&](size_t s) { return s != bb && toA[s]; });
        if (!again) continue;
        if (!clear(a.statement + 1, block.last)) return false;
        work.insert(work.end(), block.successors.begin(), block.successors.end());
        continue;
      }
      if (!clear(block.first, block.last)) return false;
      work.insert(work.end(), block.successors.begin(), block.successors.end());
    }
    return true;
  };
  std::unordered_map<std::string, std::vector<size_t>> byRegister;
  for (size_t i = 0; i < checked.size(); ++i)
    if (!checked[i]->addressRegister.empty() && !checked[i]->access.lanes)
      byRegister[checked[i]->addressRegister].push_back(i);
  for (const auto& [reg, indices] : byRegister) {
    for (size_t i : indices) {
      const AccessSite& a = *checked[i];
      int64_t lo = offsetOf(a), hi = lo + static_cast<int64_t>(a.access.size);
      for (size_t j : indices) {
        const AccessSite& b = *checked[j];
        if (b.statement == a.statement) continue;
        int64_t blo = offsetOf(b), bhi = blo + static_cast<int64_t>(b.access.size);
        if (blo > lo || bhi < hi) continue;
        auto [bGuard, bNegated] = guardOf(b);
        if (!bGuard.empty() && guardOf(a) != std::make_pair(bGuard, bNegated)) continue;
        size_t bb = cfg.blockOf(b.statement), ab = cfg.blockOf(a.statement);
        if (bb == ab ? b.statement > a.statement : !cfg.dominates(bb, ab)) continue;
        if ((covered[i] = clearBetween(b, a, bGuard))) break;
      }
    }
  }
  return covered;
}

void FunctionChecks::atLoopEntry(size_t preheaderLast, const std::string& text) {
  const auto* last = std::get_if<Instruction>(&function.body[preheaderLast]);
  if (last && (last->opcode == "bra" || last->opcode == "brx"))
    edits.before[preheaderLast] += text;
  else
    edits.after[preheaderLast] += text;
}

void FunctionChecks::finish() {
  if (checks_ == 0 && !rewritten_) return;
  // Declarations and prologue, then the statements with their sequences, then the checks'
  // out-of-line parts and the report block they end in (only branched to, never fallen into:
  // each part ends with a branch).
  edits.prologue = functionPrologue(regs) + declarations + entry;
  std::string fastLabel;
  if (!launchVersion.empty()) {
    // Last in the prologue: what comes before runs once, for either version.
    fastLabel = newLabel("fast");
    edits.prologue += launchConditionTest(regs, launchVersion.condition) + fmt::format("@{} bra {};\n", regs.q(0), fastLabel);
    ++unit.stats.launchVersions;
  }
  edits.epilogue = outOfLine + (checks_ ? reportBlock(regs, unit.unit) : std::string());
  // A region's test first at its start (what else is there is the region's), its exit label
  // first at its end; where one region ends where another starts, the exit before the test (the
  // first region's checked copy comes back there, and the second's test is the second's).
  std::vector<RegionVersion> regions;
  std::unordered_map<size_t, std::string> exits, tests;
  for (const RegionTest& t : regionTests) {
    tests[t.from] += regionTestStart(regs.q(1)) + t.test + fmt::format("@{} bra {};\n", regs.q(1), t.version.checkedLabel);
    exits[t.to] += t.version.exitLabel + ":\n";
    regions.push_back(t.version);
  }
  for (auto& [at, text] : tests) edits.before[at] = text + edits.before[at];
  for (auto& [at, text] : exits) edits.before[at] = text + edits.before[at];
  applyEdits(function, edits);
  unit.stats.regionCopies += addRegionVersions(function, regions);
  if (!fastLabel.empty()) addLaunchVersion(function, fastLabel, launchVersion);
  ++unit.stats.functions;
}

FunctionChecks::RegionTest& FunctionChecks::regionTest(size_t from, size_t to) {
  for (RegionTest& t : regionTests)
    if (t.from == from && t.to == to) return t;
  RegionTest& t = regionTests.emplace_back();
  t.from = from;
  t.to = to;
  t.version.checkedLabel = newLabel("checked");
  t.version.exitLabel = newLabel("regionend");
  return t;
}

std::vector<std::string> FunctionChecks::passedMetadata(const analysis::PointerDef& d) const {
  if (d.origin != analysis::BaseOrigin::Parameter || !options.metadataParams) return {};
  std::optional<analysis::ParamSlot> slot = analysis::paramSlotRead(std::get<Instruction>(function.body[d.statement]));
  if (!slot || slot->offset != 0) return {};
  return options.metadataParams->of(function.name, slot->name);
}

bool FunctionChecks::localThroughPassedPointer(const analysis::AccessSite& a) const {
  if (a.access.space != Space::Local || !a.access.uncheckable.empty() || a.addressRegister.empty() ||
      !analysis.registers().is64Bit(a.addressRegister) || a.reachingDefs.empty() || a.reachedByUndefined)
    return false;
  for (size_t d : a.reachingDefs) {
    const analysis::PointerDef& def = analysis.defs()[d];
    if (def.kind != analysis::DefKind::Base || passedMetadata(def).empty()) return false;
  }
  return true;
}

}  // namespace cucatch::instrument
