#include "instrument/LaunchMetadata.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_set>

#include "analysis/CFG.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

// The most bytes of parameters a kernel may take on every architecture and toolkit ptxas 13.0
// compiles for (Volta and later with CUDA 12.1 take 32764; older ones, and older drivers, 4096).
constexpr uint64_t kParamBytesEverywhere = 4096;

// The bytes a parameter list takes, each parameter at its alignment (its .align, else its
// element's size), as the driver lays kernel parameters out; nullopt where a size is not known.
std::optional<uint64_t> paramBytes(const ParamList& list) {
  uint64_t at = 0;
  for (const auto& p : list.params) {
    unsigned element = typeSize(p.type());
    if (element == 0 || p.declarators.size() != 1) return std::nullopt;
    uint64_t bytes = element;
    for (const auto& dim : p.declarators[0].dimensions) {
      uint64_t n = 0;
      if (!dim || std::from_chars(dim->data(), dim->data() + dim->size(), n).ec != std::errc()) return std::nullopt;
      bytes *= n;
    }
    uint64_t align = std::max<uint64_t>(element, p.alignment().value_or(0));
    at = (at + align - 1) / align * align + bytes;
  }
  return at;
}

// A variable of the kernel's own in global or constant memory (`.global .u32 count;` in its
// body): a copy of the kernel would have its own, and state the kernel keeps there across
// launches would split between the two.
bool declaresModuleMemory(const Function& f) {
  return std::any_of(f.body.begin(), f.body.end(), [](const Statement& s) {
    const auto* v = std::get_if<VariableDecl>(&s);
    return v && (v->space == ".global" || v->space == ".const");
  });
}

// The 64-bit scalar parameters of kernel `f` whose pointer a call hands to a function that takes
// its bounds (MetadataParams.h): the kernel reads their metadata to pass it on.
std::set<std::string> passedParams(const Function& f, const analysis::PointerAnalysis& pa,
                                   const MetadataParams& metadataParams) {
  std::set<std::string> out;
  std::unordered_set<std::string> arguments;
  for (size_t i = 0; i < f.body.size(); ++i) {
    const auto* in = std::get_if<Instruction>(&f.body[i]);
    const std::vector<MetadataParams::Param>* passed =
        in && in->opcode == "call" ? metadataParams.passedBy(f.name, *in) : nullptr;
    if (!passed) continue;
    for (const auto& p : *passed)
      if (std::optional<size_t> store = argumentStore(f, i, callShape(*in).arguments->elements.at(p.position).text))
        if (const Operand& v = std::get<Instruction>(f.body[*store]).operands[1]; v.kind == OperandKind::Name)
          arguments.insert(v.text);
  }
  const std::unordered_set<std::string> sources = pa.withSources(std::move(arguments));
  for (const auto& d : pa.defs()) {
    if (d.kind != analysis::DefKind::Base || d.origin != analysis::BaseOrigin::Parameter || !sources.count(d.reg))
      continue;
    std::optional<analysis::ParamSlot> slot = analysis::paramSlotRead(std::get<Instruction>(f.body[d.statement]));
    if (slot && slot->offset == 0) out.insert(slot->name);
  }
  return out;
}

}  // namespace

std::vector<LaunchTwin> addLaunchTwins(Module& module, const analysis::SymbolTable& moduleSymbols,
                                       MetadataParams& metadataParams) {
  std::vector<LaunchTwin> twins;
  if (hasDebugSections(module)) return twins;
  for (size_t i = 0; i < module.items.size(); ++i) {
    const auto* f = std::get_if<Function>(&module.items[i]);
    if (!f || !f->isEntry || !f->hasBody || !f->params || declaresModuleMemory(*f)) continue;
    // The pointers its accesses are made from, and those it hands to functions with their bounds.
    const analysis::CFG cfg(*f);
    const analysis::SymbolTable symbols = analysis::functionSymbols(*f, moduleSymbols);
    const analysis::PointerAnalysis pa(*f, cfg, symbols);
    std::vector<MetadataParams::Param> params;
    const std::vector<MetadataParams::Param> accessed = pointerParams(*f, pa);
    const std::set<std::string> passed = passedParams(*f, pa, metadataParams);
    for (size_t k = 0; k < f->params->params.size(); ++k) {
      const auto& p = f->params->params[k];
      if (!isScalar64Param(p)) continue;
      const std::string& name = p.declarators[0].name;
      if (passed.count(name) || std::any_of(accessed.begin(), accessed.end(), [&](const auto& a) { return a.name == name; }))
        params.push_back({k, name});
    }
    if (params.empty()) continue;
    // Each parameter's three: .b64, .b64, .b32, after K's own.
    std::optional<uint64_t> own = paramBytes(*f->params);
    if (!own || (*own + 7) / 8 * 8 + params.size() * 24 > kParamBytesEverywhere) continue;
    Function twin = *f;
    twin.name += kLaunchTwinSuffix;  // (and K's linkage: a .weak template kernel's twin is .weak too)
    metadataParams.byFunction[twin.name] = params;
    // Its indirect calls pass what the kernel's do (the prototypes' labels are the kernel's).
    std::vector<std::pair<std::pair<std::string, std::string>, std::vector<MetadataParams::Param>>> prototypes;
    for (const auto& [key, passed] : metadataParams.byPrototype)
      if (key.first == f->name) prototypes.push_back({{twin.name, key.second}, passed});
    metadataParams.byPrototype.insert(prototypes.begin(), prototypes.end());
    twins.push_back({f->name, twin.name, std::move(params), f->params->params.size()});
    module.items.insert(module.items.begin() + static_cast<std::ptrdiff_t>(++i), TopLevel(std::move(twin)));
  }
  return twins;
}

}  // namespace cucatch::instrument
