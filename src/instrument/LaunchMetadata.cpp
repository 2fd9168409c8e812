#include "instrument/LaunchMetadata.h"

#include <algorithm>
#include <charconv>
#include <iterator>

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

bool hasDebugSections(const Module& module) {
  return std::any_of(module.items.begin(), module.items.end(), [](const TopLevel& t) {
    const auto* s = std::get_if<Section>(&t);
    return s && s->name.starts_with(".debug_info");
  });
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

}  // namespace

std::vector<LaunchTwin> addLaunchTwins(Module& module, const analysis::SymbolTable& moduleSymbols) {
  std::vector<LaunchTwin> twins;
  if (hasDebugSections(module)) return twins;
  for (size_t i = 0; i < module.items.size(); ++i) {
    const auto* f = std::get_if<Function>(&module.items[i]);
    if (!f || !f->isEntry || !f->hasBody || !f->params || declaresModuleMemory(*f)) continue;
    std::vector<MetadataParams::Param> params = pointerParams(*f, moduleSymbols);
    if (params.empty()) continue;
    // Each parameter's three: .b64, .b64, .b32, after K's own.
    std::optional<uint64_t> own = paramBytes(*f->params);
    if (!own || (*own + 7) / 8 * 8 + params.size() * 24 > kParamBytesEverywhere) continue;
    Function twin = *f;
    twin.name += kLaunchTwinSuffix;  // (and K's linkage: a .weak template kernel's twin is .weak too)
    twins.push_back({f->name, twin.name, std::move(params), f->params->params.size()});
    module.items.insert(module.items.begin() + static_cast<std::ptrdiff_t>(++i), TopLevel(std::move(twin)));
  }
  return twins;
}

}  // namespace cucatch::instrument
