#include "instrument/GlobalChecks.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

constexpr const char* kReservedPrefix = "%__cc";

// Which accesses get a SAFETYCHECK, and why the others do not.
std::string_view uncheckedReason(const AccessSite& a, const RegisterFile& regs) {
  if (!a.access.uncheckable.empty()) return a.access.uncheckable;
  switch (a.access.space) {
    case Space::Global:
    case Space::Generic: break;
    case Space::Param: return ".param space (parameters and call arguments)";
    case Space::Shared:
    case Space::SharedCluster: return "shared memory (checked by the shared-memory pass, not this one)";
    case Space::Local: return "local memory (checked by the local-memory pass, not this one)";
    case Space::Const: return "constant memory";
    case Space::Other: return "other state space";
  }
  if (!a.addressSymbol.empty()) return "[symbol+offset] address (module variable or parameter)";
  if (a.addressRegister.empty()) return "absolute or computed address expression";
  if (!regs.is64Bit(a.addressRegister)) return "32-bit address register";
  if (a.pointerSpace == Space::Local || a.pointerSpace == Space::Shared || a.pointerSpace == Space::Const ||
      a.pointerSpace == Space::SharedCluster)
    return "generic pointer into local, shared or const memory (not global memory)";
  return {};
}

unsigned accessFlags(AccessKind k) {
  switch (k) {
    case AccessKind::Read: return abi::kAccessRead;
    case AccessKind::Write: return abi::kAccessWrite;
    case AccessKind::Atomic: return abi::kAccessAtomic;
  }
  return 0;
}

class FunctionInstrumenter {
 public:
  FunctionInstrumenter(Function& f, const std::unordered_map<std::string, SymbolInfo>& symbols,
                       Result& result, uint32_t& nextSite, uint32_t& nextLabel)
      : f_(f), symbols_(symbols), result_(result), nextSite_(nextSite), nextLabel_(nextLabel) {}

  void run() {
    CFG cfg(f_);
    PointerAnalysis pa(f_, cfg, symbols_);
    if (pa.registers().usesPrefix(kReservedPrefix))
      throw std::runtime_error(fmt::format("function '{}' already declares registers named {}*: "
                                           "it was instrumented before, or uses cucatch's reserved names",
                                           f_.name, kReservedPrefix));
    // Accesses to check, and the registers whose metadata they need.
    std::vector<const AccessSite*> checked;
    std::unordered_set<std::string> relevant;
    for (const auto& a : pa.accesses()) {
      if (staticallyInBounds(a)) {
        ++result_.stats.provenInBounds;
        continue;
      }
      std::string_view why = uncheckedReason(a, pa.registers());
      if (!why.empty()) {
        ++result_.stats.unchecked[std::string(why)];
        continue;
      }
      checked.push_back(&a);
      relevant.insert(a.addressRegister);
      if (a.reachingDefs.size() > 1) ++result_.stats.phiAccesses;
    }
    if (checked.empty()) return;
    relevant = pa.withSources(std::move(relevant));
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

    std::unordered_map<size_t, std::string> before, after;
    // Metadata follows every definition of a relevant register.
    for (const auto& d : pa.defs()) {
      if (!relevant.count(d.reg)) continue;
      const auto& in = std::get<Instruction>(f_.body[d.statement]);
      std::string g = in.guard ? guardPrefix(in.guard->predicate, in.guard->negated) : "";
      const MetadataRegs& to = meta_.at(d.reg);
      switch (d.kind) {
        case DefKind::Derived:
          after[d.statement] += copyMetadata(to, meta_.at(d.sources[0]), g);
          break;
        case DefKind::Select: {
          MetadataRegs unknown = unknownRegs();
          const MetadataRegs& a = d.sources[0].empty() ? unknown : meta_.at(d.sources[0]);
          const MetadataRegs& b = d.sources[1].empty() ? unknown : meta_.at(d.sources[1]);
          if (d.sources[0].empty() || d.sources[1].empty()) after[d.statement] += unknownMetadata(unknown, "");
          after[d.statement] += selectMetadata(to, a, b, printOperand(in.operands.at(3)), g);
          break;
        }
        case DefKind::Base: {
          auto sym = symbols_.find(d.symbol);
          if (d.origin == BaseOrigin::Symbol) {
            if (sym != symbols_.end() && sym->second.space == Space::Global && sym->second.size > 0)
              after[d.statement] += symbolMetadata(to, d.symbol, sym->second.size, g);
            else
              after[d.statement] += unknownMetadata(to, g);
          } else {
            after[d.statement] += readMetadata(regs_, to, d.reg, g);
            ++result_.stats.metadataReads;
          }
          break;
        }
        case DefKind::Integer:
          after[d.statement] += unknownMetadata(to, g);
          break;
      }
    }
    // A SAFETYCHECK before every checked access, which then goes through the untagged pointer.
    uint32_t file = 0, line = 0, column = 0;
    uint32_t inlinedAt[3] = {0, 0, 0};
    std::unordered_map<size_t, const AccessSite*> checkAt;
    for (const auto* a : checked) checkAt[a->statement] = a;
    for (size_t i = 0; i < f_.body.size(); ++i) {
      if (auto* l = std::get_if<LocDirective>(&f_.body[i])) {
        file = l->file;
        line = l->line;
        column = l->column.value_or(0);
        inlinedAt[0] = inlinedAt[1] = inlinedAt[2] = 0;
        for (const auto& attr : l->attributes)
          if (attr.rfind("inlined_at", 0) == 0)
            std::sscanf(attr.c_str(), "inlined_at %u %u %u", &inlinedAt[0], &inlinedAt[1], &inlinedAt[2]);
        continue;
      }
      auto it = checkAt.find(i);
      if (it == checkAt.end()) continue;
      const AccessSite& a = *it->second;
      auto& in = std::get<Instruction>(f_.body[i]);
      Site site{nextSite_++, f_.name, in.loc.line, file, line, column, inlinedAt[0], inlinedAt[1], inlinedAt[2],
                f_.isEntry, printStatement(in), std::string(accessKindName(a.access.kind)), a.access.size,
                std::string(spaceName(a.access.space))};
      Operand& address = in.operands[a.access.addressOperand];
      CheckSite c{result_.unit, site.id, a.addressRegister, address.value, a.access.size, accessFlags(a.access.kind),
                  fmt::format("{}a{}", kMetaPrefix, untaggedCount_++), fmt::format("$__cc_ok{}", nextLabel_++)};
      before[i] += safetyCheck(regs_, meta_.at(a.addressRegister), c, in.guard ? in.guard->predicate : "",
                               in.guard && in.guard->negated);
      address.text = c.untagged;
      ++result_.stats.instrumented[fmt::format("{} {}", spaceName(a.access.space), accessKindName(a.access.kind))];
      result_.sites.push_back(std::move(site));
    }

    // Rebuild the body: declarations and prologue, then statements with their sequences.
    std::vector<Statement> body;
    body.reserve(f_.body.size() * 2);
    std::string prologue = functionPrologue(regs_) + declareMetadata(kMetaPrefix, n64, n32);
    if (untaggedCount_) prologue += fmt::format(".reg .b64 {}a<{}>;\n", kMetaPrefix, untaggedCount_);
    // Registers reached by "no definition" on some path start out unknown.
    for (const auto& r : ordered) prologue += unknownMetadata(meta_.at(r), "");
    size_t i = 0;
    while (i < f_.body.size() && std::holds_alternative<VariableDecl>(f_.body[i])) body.push_back(std::move(f_.body[i++]));
    append(body, prologue);
    for (; i < f_.body.size(); ++i) {
      if (auto it = before.find(i); it != before.end()) append(body, it->second);
      body.push_back(std::move(f_.body[i]));
      if (auto it = after.find(i); it != after.end()) append(body, it->second);
    }
    f_.body = std::move(body);
    ++result_.stats.functions;
  }

 private:
  static constexpr const char* kMetaPrefix = "%__cc_";

  // [sym+offset] into a module .global variable of known size, entirely inside it: no
  // runtime check is needed.
  bool staticallyInBounds(const AccessSite& a) const {
    if (a.addressSymbol.empty() || !a.access.uncheckable.empty() || a.access.size == 0) return false;
    if (a.access.space != Space::Global && a.access.space != Space::Generic) return false;
    auto it = symbols_.find(a.addressSymbol);
    if (it == symbols_.end() || it->second.space != Space::Global || it->second.size == 0) return false;
    int64_t offset = std::get<Instruction>(f_.body[a.statement]).operands[a.access.addressOperand].value;
    return offset >= 0 && static_cast<uint64_t>(offset) + a.access.size <= it->second.size;
  }

  static void append(std::vector<Statement>& body, const std::string& text) {
    for (auto& s : parseSyntheticStatements(text)) body.push_back(std::move(s));
  }
  // Scratch registers holding "unknown" metadata for a select with a non-register operand.
  MetadataRegs unknownRegs() const { return {regs_.t(6), regs_.t(7), regs_.u(1)}; }

  Function& f_;
  const std::unordered_map<std::string, SymbolInfo>& symbols_;
  Result& result_;
  uint32_t& nextSite_;
  uint32_t& nextLabel_;
  FunctionRegs regs_;
  std::unordered_map<std::string, MetadataRegs> meta_;
  size_t untaggedCount_ = 0;
};

// Index of the first module item after .version/.target/.address_size.
size_t headerEnd(const Module& m) {
  size_t i = 0;
  while (i < m.items.size() &&
         (std::holds_alternative<VersionDirective>(m.items[i]) || std::holds_alternative<TargetDirective>(m.items[i]) ||
          std::holds_alternative<AddressSizeDirective>(m.items[i])))
    ++i;
  return i;
}

}  // namespace

std::string siteTableJson(const Module& module, uint32_t unit, const std::vector<Site>& sites) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& item : module.items)
    if (auto* f = std::get_if<FileDirective>(&item)) {
      std::string path = f->path.size() >= 2 ? f->path.substr(1, f->path.size() - 2) : f->path;
      files[std::to_string(f->index)] = path;
    }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : sites) {
    nlohmann::json site{{"id", s.id}, {"function", s.function}, {"entry", s.entry}, {"ptx_line", s.ptxLine},
                        {"file", s.file}, {"line", s.line}, {"column", s.column}, {"instruction", s.instruction},
                        {"kind", s.kind}, {"size", s.size}, {"space", s.space}};
    if (s.inlinedLine)
      site["inlined_at"] = {{"file", s.inlinedFile}, {"line", s.inlinedLine}, {"column", s.inlinedColumn}};
    list.push_back(std::move(site));
  }
  return nlohmann::json{{"abi", abi::kAbiVersion}, {"module", module.sourceName}, {"unit", unit},
                        {"files", files}, {"sites", list}}
      .dump();
}

Result instrumentGlobalAccesses(Module& module, const Options& options) {
  Result result;
  for (const auto& item : module.items)
    if (auto* v = std::get_if<VariableDecl>(&item))
      for (const auto& d : v->declarators)
        if (d.name == CUCATCH_STATE_SYMBOL)
          throw std::runtime_error("module is already instrumented (it defines " CUCATCH_STATE_SYMBOL ")");
  // The unit id names this module's site table. Identical input gives an identical table,
  // which is what makes the (weak) tables of one unit linked twice merge cleanly.
  {
    uint32_t h = 2166136261u;  // FNV-1a
    for (unsigned char ch : print(module)) h = (h ^ ch) * 16777619u;
    result.unit = h;
  }
  auto symbols = moduleSymbols(module);
  uint32_t nextSite = 0, nextLabel = 0;
  for (Function* f : module.functions()) {
    if (!f->hasBody) continue;
    FunctionInstrumenter(*f, symbols, result, nextSite, nextLabel).run();
  }
  // Module level: the state symbol and ABI marker always (the runtime recognises an
  // instrumented module by them); the report function and site table when anything is checked.
  // Both are the same for every module: parsed once per process.
  static const std::vector<TopLevel> kDeclarations = parseSyntheticItems(moduleDeclarations());
  static const std::vector<TopLevel> kReport = parseSyntheticItems(reportFunction());
  std::vector<TopLevel> items = kDeclarations;
  if (!result.sites.empty()) items.insert(items.end(), kReport.begin(), kReport.end());
  if (options.emitSiteTable && !result.sites.empty()) {
    std::string unit = fmt::format("{:08x}", result.unit);
    // The empty kernel whose name tells the runtime that this unit is in a loaded module.
    auto marker = parseSyntheticItems(fmt::format(".weak .entry {}{}()\n{{\nret;\n}}\n", CUCATCH_UNIT_PREFIX, unit));
    items.insert(items.end(), marker.begin(), marker.end());
    // Built as IR, not text: a large initializer would go through the (slow) grammar.
    std::string json = siteTableJson(module, result.unit, result.sites);
    VariableDecl table;
    table.linkage = {".weak"};
    table.space = ".global";
    table.qualifiers = {DeclQualifier{".align", 1, {}}, DeclQualifier{".b8", std::nullopt, {}}};
    Declarator d;
    d.name = CUCATCH_SITES_PREFIX + unit;
    d.dimensions.push_back(std::to_string(json.size() + 1));
    Initializer init;
    init.isList = true;
    init.list.reserve(json.size() + 1);
    for (unsigned char c : json) init.list.push_back(Initializer{std::to_string(c), {}, false});
    init.list.push_back(Initializer{"0", {}, false});
    d.initializer = std::move(init);
    table.declarators.push_back(std::move(d));
    items.insert(items.begin() + 2, std::move(table));
  }
  module.items.insert(module.items.begin() + static_cast<long>(headerEnd(module)),
                      std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
  return result;
}

}  // namespace cucatch::instrument
