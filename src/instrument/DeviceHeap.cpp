#include "instrument/DeviceHeap.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
#include "ptx/Parser.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

void redirectDeviceHeapCalls(Module& module, UnitResult& unit) {
  std::unordered_set<std::string> defined, declared;
  for (const Function* f : module.functions()) (f->hasBody ? defined : declared).insert(f->name);
  for (Function* f : module.functions()) {
    if (!f->hasBody) continue;
    std::vector<SourcePlace> places;
    std::vector<std::pair<size_t, std::string>> inserts;  // (statement, the site argument's declaration)
    for (size_t i = 0; i < f->body.size(); ++i) {
      auto* in = std::get_if<Instruction>(&f->body[i]);
      if (!in || in->opcode != "call") continue;
      CallShape c = callShape(*in);
      if (!c.callee || !c.arguments) continue;
      const std::string callee = c.callee->text;
      if (!isDeviceHeapFunction(callee) || defined.count(callee) || !declared.count(callee)) continue;
      if (places.empty()) places = sourcePlaces(*f);
      Site site = siteAt(*f, i, places[i], static_cast<uint32_t>(unit.sites.size()));
      site.kind = isDeviceHeapFree(callee) ? "free" : "malloc";
      site.space = "heap";
      unit.sites.push_back(site);
      ++unit.stats.deviceHeapCalls;
      unit.heapFunctionsWrapped.insert(callee);
      // The site goes in as one more .param argument, declared in the call's own scope.
      std::string param = fmt::format("__cc_heap_site{}", unit.nextLabel++);
      inserts.emplace_back(i, fmt::format(".param .b32 {0};\nst.param.b32 [{0}], {1};\n", param, site.id));
      size_t calleeIndex = static_cast<size_t>(c.callee - in->operands.data());
      size_t argumentsIndex = static_cast<size_t>(c.arguments - in->operands.data());
      in->operands[calleeIndex].text = heapWrapperName(callee, unit.unit);
      in->operands[argumentsIndex].elements.push_back(Operand::name(param));
    }
    // Back to front, so that the indices still to come stay valid.
    for (auto it = inserts.rbegin(); it != inserts.rend(); ++it) {
      auto statements = parseSyntheticStatements(it->second);
      f->body.insert(f->body.begin() + static_cast<long>(it->first), statements.begin(), statements.end());
    }
  }
}

// What a whole-program module declares without a body: printf, assert and the device runtime
// (dynamic parallelism, cooperative groups' grid synchronization, device-side cudaMalloc: the
// CUDA API's names, cudaX..., and the implementation's reserved __cuda...). None of them reaches
// the device heap's wrappers. (The heap functions: wrapped where called.) A user's function
// named cuda_something is not theirs.
bool isCudaSystemFunction(const std::string& name) {
  const bool cudaApi = name.size() > 4 && name.starts_with("cuda") && name[4] >= 'A' && name[4] <= 'Z';
  return name == "vprintf" || name == "__assertfail" || cudaApi || name.starts_with("__cuda") ||
         isDeviceHeapFunction(name);
}

DeviceHeapEntries deviceHeapEntriesMayChange(const Module& module, const UnitResult& unit, bool wholeProgram) {
  if (!unit.heapFunctionsWrapped.empty()) return DeviceHeapEntries::FromL2;
  std::unordered_set<std::string> defined, named;
  for (const Function* f : module.functions()) {
    named.insert(f->name);
    if (f->hasBody) defined.insert(f->name);
  }
  // Where the module may not be all the code its kernels run, an indirect call may reach another
  // unit's function (a pointer held in another unit's variable, a virtual table): its callee is
  // a register, no function of the module.
  if (!wholeProgram)
    for (const Function* f : module.functions())
      for (const auto& s : f->body)
        if (const auto* in = std::get_if<Instruction>(&s); in && in->opcode == "call")
          if (const Operand* callee = callShape(*in).callee; callee && !named.count(callee->text))
            return DeviceHeapEntries::FromL2;
  auto has = [](const Function& f, const char* linkage) {
    return std::find(f.linkage.begin(), f.linkage.end(), linkage) != f.linkage.end();
  };
  for (const Function* f : module.functions()) {
    if (f->isEntry) continue;
    // (A declaration of a function the module defines later is no call into another unit; in a
    // whole program, no other unit calls a .visible or .weak function.)
    const bool callableByOthers = !wholeProgram && f->hasBody && (has(*f, ".visible") || has(*f, ".weak"));
    const bool othersCode = !f->hasBody && !defined.count(f->name) && !isCudaSystemFunction(f->name);
    if (callableByOthers || othersCode) return DeviceHeapEntries::FromL2;
  }
  return DeviceHeapEntries::ThroughL1;
}

}  // namespace cucatch::instrument
