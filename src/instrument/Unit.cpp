#include "instrument/Unit.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "instrument/Sequences.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

uint8_t UnitResult::objectId(const Site& o) {
  for (size_t i = 0; i < objects.size(); ++i)
    if (objects[i].object == o.object && objects[i].function == o.function &&
        objects[i].objectFrameArray == o.objectFrameArray && objects[i].objectFrameOffset == o.objectFrameOffset)
      return static_cast<uint8_t>(i + 1);
  if (objects.size() == 255) return 0;
  objects.push_back(o);
  return static_cast<uint8_t>(objects.size());
}

uint32_t unitId(const Module& module) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char ch : print(module)) h = (h ^ ch) * 16777619u;
  return h;
}

void refuseInstrumented(const Module& module) {
  for (const auto& item : module.items)
    if (auto* v = std::get_if<VariableDecl>(&item))
      for (const auto& d : v->declarators)
        if (d.name == CUCATCH_STATE_SYMBOL)
          throw std::runtime_error("module is already instrumented (it defines " CUCATCH_STATE_SYMBOL ")");
}

void refuseUnsupported(const Module& module) {
  // What the inserted code needs: .weak declarations (PTX ISA 3.1), 64-bit addresses, and
  // instructions of sm_20 and later (atom, membar.sys). Older PTX (a CUDA 2-era module kept as
  // a string, as cuda-samples' matrixMulDynlinkJIT loads) would not assemble once instrumented.
  const VersionDirective* version = module.version();
  if (version && (version->major() < 3 || (version->major() == 3 && version->minor() < 1)))
    throw ptx::InputError(version->loc, fmt::format("PTX ISA {} is older than cucatch instruments (3.1 and later)",
                                                    version->version));
  for (const auto& item : module.items)
    if (auto* a = std::get_if<AddressSizeDirective>(&item); a && a->bits != 64)
      throw ptx::InputError(a->loc, fmt::format("{}-bit addresses: cucatch instruments 64-bit code only", a->bits));
  std::string target = module.smTarget();
  if (target.rfind("sm_1", 0) == 0 && target.size() == 5)
    throw ptx::InputError(module.target()->loc,
                          fmt::format(".target {} is older than cucatch instruments (sm_20 and later)", target));
}

std::vector<SourcePlace> sourcePlaces(const Function& f) {
  std::vector<SourcePlace> places(f.body.size());
  SourcePlace place;
  // Code inlined through several functions comes as a chain of .loc directives, each inlined at
  // the place of the one before it (`.loc 2 879 3, ..., inlined_at 1 12 3` then `.loc 3 611 5,
  // ..., inlined_at 2 879 3`: the device runtime's cudaMalloc inlined into cuda_runtime.h's
  // template, inlined into the program's line 12). A place's inlined_at is followed back along
  // the latest such directives to the outermost one, the program's own line.
  using Place = std::array<uint32_t, 3>;
  std::map<Place, Place> inlinedAt;
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (auto* l = std::get_if<LocDirective>(&f.body[i])) {
      place = SourcePlace{l->file, l->line, l->column.value_or(0)};
      for (const auto& attr : l->attributes)
        if (attr.rfind("inlined_at", 0) == 0)
          std::sscanf(attr.c_str(), "inlined_at %u %u %u", &place.inlinedFile, &place.inlinedLine, &place.inlinedColumn);
      if (place.inlinedLine) {
        Place at{place.inlinedFile, place.inlinedLine, place.inlinedColumn};
        // (A bound on the walk: a malformed chain could loop.)
        for (int hops = 0; hops < 64; ++hops) {
          auto outer = inlinedAt.find(at);
          if (outer == inlinedAt.end() || outer->second == at) break;
          at = outer->second;
        }
        inlinedAt[Place{place.file, place.line, place.column}] = at;
        place.inlinedFile = at[0];
        place.inlinedLine = at[1];
        place.inlinedColumn = at[2];
      }
    }
    places[i] = place;
  }
  return places;
}

std::string sourceFunctionName(std::string_view name) {
  for (std::string_view suffix : {kMetadataEntrySuffix, kPrivateBodySuffix, kLaunchTwinSuffix})
    if (name.size() > suffix.size() && name.ends_with(suffix)) return std::string(name.substr(0, name.size() - suffix.size()));
  return std::string(name);
}

std::string sourceFunctionName(const Function& f) { return sourceFunctionName(f.name); }

bool hasDebugSections(const Module& module) {
  return std::any_of(module.items.begin(), module.items.end(), [](const TopLevel& t) {
    const auto* s = std::get_if<Section>(&t);
    return s && s->name.starts_with(".debug_info");
  });
}

Site siteAt(const Function& f, size_t statement, const SourcePlace& place, uint32_t id) {
  const auto& in = std::get<Instruction>(f.body[statement]);
  Site s;
  s.id = id;
  s.function = sourceFunctionName(f);
  s.ptxLine = in.loc.line;
  s.file = place.file;
  s.line = place.line;
  s.column = place.column;
  s.inlinedFile = place.inlinedFile;
  s.inlinedLine = place.inlinedLine;
  s.inlinedColumn = place.inlinedColumn;
  s.entry = f.isEntry;
  s.instruction = printStatement(in);
  return s;
}

std::string siteTableJson(const Module& module, const UnitResult& result) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& item : module.items)
    if (auto* f = std::get_if<FileDirective>(&item)) {
      std::string path = f->path.size() >= 2 ? f->path.substr(1, f->path.size() - 2) : f->path;
      files[std::to_string(f->index)] = path;
    }
  auto objectJson = [](const Site& s) {
    nlohmann::json o{{"name", s.object}, {"bytes", s.objectBytes}, {"space", s.objectSpace}, {"dynamic", s.objectDynamic}};
    if (s.objectPart) o["part"] = true;
    if (s.objectFrameArray) {
      o["frame_offset"] = s.objectFrameOffset;
      o["frame_bytes"] = s.objectFrameBytes;
    }
    return o;
  };
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : result.sites) {
    nlohmann::json site{{"id", s.id}, {"function", s.function}, {"entry", s.entry}, {"ptx_line", s.ptxLine},
                        {"file", s.file}, {"line", s.line}, {"column", s.column}, {"instruction", s.instruction},
                        {"kind", s.kind}, {"size", s.size}, {"space", s.space}};
    if (s.inlinedLine)
      site["inlined_at"] = {{"file", s.inlinedFile}, {"line", s.inlinedLine}, {"column", s.inlinedColumn}};
    if (!s.object.empty()) site["object"] = objectJson(s);
    if (s.objectOfOwnFrame) site["own_frame_object"] = true;
    list.push_back(std::move(site));
  }
  // The variables metadata words name (abi::kMetaStateVariable), by index.
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& o : result.objects)
    objects.push_back({{"function", o.function}, {"entry", o.entry}, {"object", objectJson(o)}});
  // The unit's kernels: the runtime hands tagged arguments only to these, and names their
  // register counts when a launch fails for resources.
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& k : result.kernels) {
    nlohmann::json kernel = nlohmann::json::object();
    // What ptxas measured is written only with the cap it led to (which changes the PTX anyway):
    // the text must be the one the measurement compiled, so that cucatch-nvcc's ptxas can take
    // its object (toolchain/CubinReuse.h). (The original's count is what the runtime names when
    // a capped kernel's launch fails for resources.)
    if (k.originalRegisters && (k.registerLimit || !k.boundedBy.empty())) kernel["registers"] = *k.originalRegisters;
    if (k.registerLimit) kernel["register_limit"] = *k.registerLimit;
    if (!k.boundedBy.empty()) kernel["bounded_by"] = k.boundedBy;
    if (auto s = result.stackReserves.find(k.name); s != result.stackReserves.end())
      kernel["stack"] = {{"ratio_per_mille", s->second.ratioPerMille}, {"extra_bytes", s->second.extraBytes}};
    for (const LaunchTwin& t : result.launchTwins) {
      if (t.kernel != k.name) continue;
      nlohmann::json positions = nlohmann::json::array();
      for (const auto& p : t.params) positions.push_back(p.position);
      kernel["launch"] = {{"kernel", t.twin}, {"params", positions}, {"param_count", t.paramCount}};
    }
    kernels[k.name] = std::move(kernel);
  }
  nlohmann::json table{{"abi", abi::kAbiVersion}, {"module", module.sourceName}, {"unit", result.unit},
                       {"files", files}, {"kernels", kernels}, {"sites", list}, {"objects", objects}};
  if (!result.callGraph.empty()) {
    nlohmann::json graph = nlohmann::json::object();
    for (const auto& [name, f] : result.callGraph) {
      nlohmann::json node{{"frame", f.frame}, {"original", f.original}};
      if (f.kernel) node["kernel"] = true;
      if (f.callsIndirectly) node["indirect"] = true;
      if (f.forwarder) node["forwarder"] = true;
      if (result.localFunctions.count(name)) node["local"] = true;
      if (!f.callees.empty()) node["calls"] = f.callees;
      graph[name] = std::move(node);
    }
    table["call_graph"] = std::move(graph);
  }
  return table.dump();
}

namespace {

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

Site localFrameObject(const Function& f, const std::string& symbol, uint64_t bytes) {
  Site o;
  o.object = symbol;
  o.objectBytes = bytes;
  o.objectSpace = "local";
  o.function = sourceFunctionName(f);
  o.entry = f.isEntry;
  return o;
}

Site localArrayObject(const Function& f, const std::string& symbol, uint64_t frameBytes, uint64_t start,
                      uint64_t bytes) {
  Site o = localFrameObject(f, symbol, bytes);
  o.objectFrameArray = true;
  o.objectFrameOffset = start;
  o.objectFrameBytes = frameBytes;
  return o;
}

void addUnitDeclarations(Module& module, const UnitResult& result) {
  // The state symbol and ABI marker always (the runtime recognises an instrumented module by
  // them); the same for every module: parsed once per process.
  static const std::vector<TopLevel> kDeclarations = parseSyntheticItems(moduleDeclarations());
  std::vector<TopLevel> items = kDeclarations;
  if (result.usesSharedWindow) {
    // (Aligned as nvcc declares its own dynamic arrays, so that it lies where they do.)
    auto dynamic = parseSyntheticItems(fmt::format(".extern .shared .align 16 .b8 {}[];\n", CUCATCH_DYNAMIC_SMEM_SYMBOL));
    items.insert(items.end(), dynamic.begin(), dynamic.end());
  }
  if (!result.sites.empty() || !result.kernels.empty()) {
    // The empty kernel whose name tells the runtime that this unit, of this ABI version, is in a
    // loaded module.
    auto marker = parseSyntheticItems(fmt::format(".weak .entry {}()\n{{\nret;\n}}\n", unitKernelName(result.unit)));
    items.insert(items.end(), marker.begin(), marker.end());
    // Built as IR, not text: a large initializer would go through the (slow) grammar.
    std::string json = siteTableJson(module, result);
    VariableDecl table;
    table.linkage = {".weak"};
    table.space = ".global";
    table.qualifiers = {DeclQualifier{".align", 1, {}}, DeclQualifier{".b8", std::nullopt, {}}};
    Declarator d;
    d.name = fmt::format("{}{:08x}", CUCATCH_SITES_PREFIX, result.unit);
    d.dimensions.push_back(std::to_string(json.size() + 1));
    Initializer init;
    init.isList = true;
    init.list.reserve(json.size() + 1);
    for (unsigned char c : json) init.list.push_back(Initializer{std::to_string(c), {}, false});
    init.list.push_back(Initializer{"0", {}, false});
    d.initializer = std::move(init);
    table.declarators.push_back(std::move(d));
    items.insert(items.begin() + static_cast<long>(kDeclarations.size()), std::move(table));
  }
  if (!result.frameLookups.empty()) {
    // (It calls nothing: defined before every function that calls it.)
    auto lookup = parseSyntheticItems(frameLookupFunction(result.unit, result.frameArrays));
    items.insert(items.end(), lookup.begin(), lookup.end());
  }
  HeapWrappers heap = deviceHeapWrappers(result.heapFunctionsWrapped, result.unit);
  if (!heap.prototypes.empty()) {
    // Declared before any call to them; defined after the module's own declarations of the
    // functions they call.
    auto prototypes = parseSyntheticItems(heap.prototypes);
    items.insert(items.end(), prototypes.begin(), prototypes.end());
    auto definitions = parseSyntheticItems(heap.definitions);
    module.items.insert(module.items.end(), std::make_move_iterator(definitions.begin()),
                        std::make_move_iterator(definitions.end()));
  }
  module.items.insert(module.items.begin() + static_cast<long>(headerEnd(module)),
                      std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
}

}  // namespace cucatch::instrument
