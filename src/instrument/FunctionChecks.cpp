#include "instrument/FunctionChecks.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>
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
      options(checkOptions) {
  if (analysis.registers().usesPrefix(kReservedPrefix))
    throw std::runtime_error(fmt::format("function '{}' already declares registers named {}*: "
                                         "it was instrumented before, or uses cucatch's reserved names",
                                         f.name, kReservedPrefix));
  locs_.resize(f.body.size());
  Loc loc;
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (auto* l = std::get_if<LocDirective>(&f.body[i])) {
      loc = Loc{l->file, l->line, l->column.value_or(0)};
      for (const auto& attr : l->attributes)
        if (attr.rfind("inlined_at", 0) == 0)
          std::sscanf(attr.c_str(), "inlined_at %u %u %u", &loc.inlinedAt[0], &loc.inlinedAt[1], &loc.inlinedAt[2]);
    }
    locs_[i] = loc;
  }
}

Site FunctionChecks::newSite(const AccessSite& a) const {
  const auto& in = std::get<Instruction>(function.body[a.statement]);
  const Loc& l = locs_[a.statement];
  Site s;
  s.id = static_cast<uint32_t>(unit.sites.size());
  s.function = function.name;
  s.ptxLine = in.loc.line;
  s.file = l.file;
  s.line = l.line;
  s.column = l.column;
  s.inlinedFile = l.inlinedAt[0];
  s.inlinedLine = l.inlinedAt[1];
  s.inlinedColumn = l.inlinedAt[2];
  s.entry = function.isEntry;
  s.instruction = printStatement(in);
  s.kind = accessKindName(a.access.kind);
  s.size = a.access.size;
  s.space = spaceName(a.access.space);
  return s;
}

void FunctionChecks::addSite(Site site, const AccessSite& a) {
  ++unit.stats.instrumented[fmt::format("{} {}", spaceName(a.access.space), accessKindName(a.access.kind))];
  unit.sites.push_back(std::move(site));
  ++checks_;
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
    const std::string& op = in->opcode;
    if (op == "call" || op == "exit" || op == "ret" || op == "trap" || op == "brkpt") {
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

void FunctionChecks::finish() {
  if (checks_ == 0) return;
  // Declarations and prologue, then the statements with their sequences, then the checks'
  // out-of-line parts and the report block they end in (only branched to, never fallen into:
  // each part ends with a branch).
  edits.prologue = functionPrologue(regs) + declarations + entry;
  edits.epilogue = outOfLine + reportBlock(regs, unit.unit);
  applyEdits(function, edits);
  ++unit.stats.functions;
}

}  // namespace cucatch::instrument
