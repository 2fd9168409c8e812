#include "instrument/GlobalChecks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "instrument/BodyEdit.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
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
  FunctionInstrumenter(Function& f, const std::unordered_map<std::string, SymbolInfo>& symbols, UnitResult& result)
      : f_(f), symbols_(symbols), result_(result) {}

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

    BodyEdits edits;
    auto& before = edits.before;
    auto& after = edits.after;
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
          if (d.origin == BaseOrigin::Symbol) {
            if (uint64_t bytes = staticBytes(d.symbol))
              after[d.statement] += symbolMetadata(to, d.symbol, bytes, g);
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
      Site site{static_cast<uint32_t>(result_.sites.size()), f_.name, in.loc.line, file, line, column, inlinedAt[0], inlinedAt[1], inlinedAt[2],
                f_.isEntry, printStatement(in), std::string(accessKindName(a.access.kind)), a.access.size,
                std::string(spaceName(a.access.space))};
      if (std::string variable = moduleVariable(pa, a); !variable.empty()) {
        site.objectBytes = staticBytes(variable);
        site.object = std::move(variable);
      }
      Operand& address = in.operands[a.access.addressOperand];
      CheckSite c{site.id, a.addressRegister, address.value, a.access.size, accessFlags(a.access.kind),
                  fmt::format("{}a{}", kMetaPrefix, untaggedCount_++), fmt::format("$__cc_ok{}", result_.nextLabel++)};
      before[i] += safetyCheck(regs_, meta_.at(a.addressRegister), c, in.guard ? in.guard->predicate : "",
                               in.guard && in.guard->negated);
      address.text = c.untagged;
      ++result_.stats.instrumented[fmt::format("{} {}", spaceName(a.access.space), accessKindName(a.access.kind))];
      result_.sites.push_back(std::move(site));
    }

    // Declarations and prologue, then the statements with their sequences, then the report
    // block the failing checks branch to (never fallen into).
    edits.prologue = functionPrologue(regs_) + declareMetadata(kMetaPrefix, n64, n32);
    if (untaggedCount_) edits.prologue += fmt::format(".reg .b64 {}a<{}>;\n", kMetaPrefix, untaggedCount_);
    // Registers reached by "no definition" on some path start out unknown.
    for (const auto& r : ordered) edits.prologue += unknownMetadata(meta_.at(r), "");
    edits.epilogue = reportBlock(regs_, result_.unit);
    applyEdits(f_, edits);
    ++result_.stats.functions;
  }

 private:
  static constexpr const char* kMetaPrefix = "%__cc_";

  // [sym+offset] into a module .global variable of known size, entirely inside it: no
  // runtime check is needed.
  bool staticallyInBounds(const AccessSite& a) const {
    if (a.addressSymbol.empty() || !a.access.uncheckable.empty() || a.access.size == 0) return false;
    if (a.access.space != Space::Global && a.access.space != Space::Generic) return false;
    uint64_t bytes = staticBytes(a.addressSymbol);
    if (bytes == 0) return false;
    int64_t offset = std::get<Instruction>(f_.body[a.statement]).operands[a.access.addressOperand].value;
    return offset >= 0 && static_cast<uint64_t>(offset) + a.access.size <= bytes;
  }

  // The size of module .global variable `symbol`, whose static bounds accesses made from its
  // symbol are checked against; 0 for anything else (other spaces, extern or unsized).
  uint64_t staticBytes(const std::string& symbol) const {
    auto it = symbols_.find(symbol);
    return it != symbols_.end() && it->second.space == Space::Global ? it->second.size : 0;
  }

  // The module .global variable whose symbol every base reaching `a` was made from (its
  // static bounds are what the access is checked against), or "".
  std::string moduleVariable(const PointerAnalysis& pa, const AccessSite& a) const {
    if (a.reachedByUndefined || a.reachingDefs.empty()) return {};
    std::string symbol;
    for (size_t d : a.reachingDefs) {
      const PointerDef& def = pa.defs()[d];
      if (def.kind != DefKind::Base || def.origin != BaseOrigin::Symbol || (!symbol.empty() && def.symbol != symbol))
        return {};
      symbol = def.symbol;
    }
    return staticBytes(symbol) ? symbol : std::string();
  }

  // Scratch registers holding "unknown" metadata for a select with a non-register operand.
  MetadataRegs unknownRegs() const { return {regs_.t(6), regs_.t(7), regs_.u(1)}; }

  Function& f_;
  const std::unordered_map<std::string, SymbolInfo>& symbols_;
  UnitResult& result_;
  FunctionRegs regs_;
  std::unordered_map<std::string, MetadataRegs> meta_;
  size_t untaggedCount_ = 0;
};

}  // namespace

void instrumentGlobalAccesses(Module& module, UnitResult& unit) {
  auto symbols = moduleSymbols(module);
  for (Function* f : module.functions()) {
    if (!f->hasBody) continue;
    FunctionInstrumenter(*f, symbols, unit).run();
  }
}

}  // namespace cucatch::instrument
