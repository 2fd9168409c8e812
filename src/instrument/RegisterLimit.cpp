#include "instrument/RegisterLimit.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include <fmt/format.h>

#include "instrument/Unit.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

const char* ownBound(const Function& f) {
  for (const auto& a : f.attributes)
    for (const char* d : {".maxntid", ".reqntid", ".maxnreg"})
      if (a.directive == d) return d;
  return nullptr;
}

}  // namespace

std::vector<FunctionLimit> kernelsOf(const Module& module) {
  std::vector<FunctionLimit> out;
  for (const Function* f : module.functions()) {
    if (!f->isEntry || !f->hasBody) continue;
    FunctionLimit k;
    k.name = f->name;
    if (const char* b = ownBound(*f)) k.boundedBy = b;
    out.push_back(std::move(k));
  }
  return out;
}

bool mayNarrowBlocks(unsigned instrumented, const RegisterFileLimits& limits) {
  return maxThreadsPerBlock(instrumented, limits) < limits.maxThreadsPerBlock;
}

bool needsOriginalRegisters(const std::vector<FunctionLimit>& kernels,
                            const std::map<std::string, unsigned>& instrumentedRegisters,
                            const RegisterFileLimits& limits) {
  return std::any_of(kernels.begin(), kernels.end(), [&](const FunctionLimit& k) {
    auto it = instrumentedRegisters.find(k.name);
    return k.boundedBy.empty() && (it == instrumentedRegisters.end() || mayNarrowBlocks(it->second, limits));
  });
}

namespace {

// What `f` calls that relocatable code compiles on its own, at a register count ptxas -v does
// not report for `f`: the first function with a body in `module` it calls (directly or through
// other such functions), or an indirect call (virtual functions, function pointers); empty when
// there is none.
std::string separatelyCompiledCallee(const Function& f, const Module& module) {
  std::map<std::string, const Function*> defined;
  std::set<std::string> declaredOnly;
  for (const Function* g : module.functions())
    if (g->hasBody) defined[g->name] = g;
  for (const Function* g : module.functions())
    if (!g->hasBody && !defined.count(g->name)) declaredOnly.insert(g->name);
  std::set<std::string> seen{f.name};
  std::vector<const Function*> work{&f};
  while (!work.empty()) {
    const Function* g = work.back();
    work.pop_back();
    for (const auto& statement : g->body) {
      auto* in = std::get_if<Instruction>(&statement);
      if (!in || in->opcode != "call") continue;
      CallShape c = callShape(*in);
      if (!c.callee) continue;
      if (c.prototype) return "an indirect call";
      auto callee = defined.find(c.callee->text);
      if (callee == defined.end()) continue;
      // The entry point this unit defines for another unit's function G (RelocatableCalls.h): it
      // only forwards to G, which, as a call of G, is not this unit's to count.
      if (const std::string source = sourceFunctionName(*callee->second);
          source != callee->first && declaredOnly.count(source))
        continue;
      if (callee->first != f.name) return "device function " + callee->first;
      if (seen.insert(callee->first).second) work.push_back(callee->second);
    }
  }
  return {};
}

}  // namespace

std::optional<unsigned> moduleRegisterCap(const std::vector<FunctionLimit>& kernels,
                                          const std::vector<FunctionLimit>& deviceFunctions) {
  std::optional<unsigned> cap;
  for (const auto* functions : {&kernels, &deviceFunctions})
    for (const auto& f : *functions)
      if (!f.moduleCapBecause.empty() && f.registerLimit) cap = std::min(cap.value_or(*f.registerLimit), *f.registerLimit);
  return cap;
}

namespace {

std::optional<unsigned> lookup(const std::map<std::string, unsigned>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? std::nullopt : std::optional<unsigned>(it->second);
}

// The largest block the original of `f` accepted (all of them, where it was not measured).
unsigned originalThreads(const FunctionLimit& f, const RegisterLimitOptions& options) {
  return f.originalRegisters ? maxThreadsPerBlock(*f.originalRegisters, options.limits) : options.limits.maxThreadsPerBlock;
}

// The cap that keeps the original's largest block, never above -maxrregcount.
unsigned capFor(const FunctionLimit& f, const RegisterLimitOptions& options) {
  unsigned cap = registerCapFor(originalThreads(f, options), options.limits);
  return options.maxRegisterCount ? std::min(cap, *options.maxRegisterCount) : cap;
}

}  // namespace

std::vector<FunctionLimit> limitDeviceFunctionRegisters(const Module& module, const RegisterLimitOptions& options) {
  std::vector<FunctionLimit> out;
  if (!options.relocatable) return out;
  for (const Function* f : module.functions()) {
    if (f->isEntry || !f->hasBody) continue;
    FunctionLimit d;
    d.name = f->name;
    // (An entry point is its function's body: the original measured it under the function's name.)
    d.originalRegisters = lookup(options.originalRegisters, sourceFunctionName(*f));
    d.instrumentedRegisters = lookup(options.instrumentedRegisters, f->name);
    // (Not measured instrumented: ptxas gave it no count, so there is nothing to compare.)
    if (!d.instrumentedRegisters || maxThreadsPerBlock(*d.instrumentedRegisters, options.limits) >= originalThreads(d, options))
      continue;
    d.registerLimit = capFor(d, options);
    d.moduleCapBecause = "relocatable code compiles it on its own, and a kernel calling it runs at its count";
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// Whether ptxas gave a count for every device function with a body (relocatable code: read
// from the object it wrote, which can fail).
bool everyDeviceFunctionMeasured(const Module& module, const RegisterLimitOptions& options) {
  for (const Function* f : module.functions())
    if (!f->isEntry && f->hasBody && !options.instrumentedRegisters.count(f->name)) return false;
  return true;
}

}  // namespace

std::vector<FunctionLimit> limitKernelRegisters(Module& module, const RegisterLimitOptions& options) {
  std::vector<FunctionLimit> out = kernelsOf(module);
  for (Function* f : module.functions()) {
    if (!f->isEntry || !f->hasBody) continue;
    auto k = std::find_if(out.begin(), out.end(), [&](const FunctionLimit& x) { return x.name == f->name; });
    // (A launch twin is its kernel's body: the original measured it under the kernel's name.)
    k->originalRegisters = lookup(options.originalRegisters, sourceFunctionName(*f));
    k->instrumentedRegisters = lookup(options.instrumentedRegisters, f->name);
    if (!k->boundedBy.empty()) continue;
    unsigned threads = originalThreads(*k, options);
    unsigned cap = capFor(*k, options);
    // In relocatable code what the kernel calls is compiled on its own and not measured with it,
    // and a .maxnreg below a callee's count is refused: a kernel whose own count narrows its
    // blocks gets the cap for the whole module. One whose own count fits needs none where every
    // device function of the module was measured: each that would narrow its callers' blocks
    // caps the module itself (limitDeviceFunctionRegisters; the cuda-samples newdelete program:
    // 46 registers of its own, 86 with its virtual functions after linking), and other units
    // bound theirs. A cap there would make nvlink refuse a call of a plain library's function
    // of more registers, which the original, uncapped, links with.
    const bool fits = k->instrumentedRegisters && maxThreadsPerBlock(*k->instrumentedRegisters, options.limits) >= threads;
    if (options.relocatable) {
      std::string callee = separatelyCompiledCallee(*f, module);
      if (!callee.empty() && (!fits || !everyDeviceFunctionMeasured(module, options))) {
        k->registerLimit = cap;
        k->moduleCapBecause = fmt::format("it makes {}, which relocatable code compiles on its own", callee);
        continue;
      }
    }
    if (fits) continue;  // it fits as it is
    k->registerLimit = cap;
    FunctionAttribute maxnreg;
    maxnreg.directive = ".maxnreg";
    maxnreg.arguments = {std::to_string(cap)};
    f->attributes.push_back(std::move(maxnreg));
  }
  return out;
}

namespace {
// The most registers per thread at which a multiprocessor still holds its most threads: 65536
// registers for 2048 threads (sm_80, sm_90; fewer threads elsewhere, so more registers).
constexpr unsigned kFullOccupancyRegisters = 32;
}  // namespace

void boundTwinRegisters(Module& module, std::vector<FunctionLimit>& kernels, bool relocatable) {
  auto countOf = [](const FunctionLimit& k) -> std::optional<unsigned> {
    if (!k.instrumentedRegisters) return std::nullopt;
    return k.registerLimit ? std::min(*k.registerLimit, *k.instrumentedRegisters) : *k.instrumentedRegisters;
  };
  for (Function* f : module.functions()) {
    if (!f->isEntry || !f->hasBody || !isLaunchTwin(f->name)) continue;
    auto twin = std::find_if(kernels.begin(), kernels.end(), [&](const FunctionLimit& x) { return x.name == f->name; });
    const std::string kernelName = sourceFunctionName(*f);
    auto kernel = std::find_if(kernels.begin(), kernels.end(), [&](const FunctionLimit& x) { return x.name == kernelName; });
    if (twin == kernels.end() || kernel == kernels.end()) continue;
    std::optional<unsigned> own = countOf(*twin), bound = countOf(*kernel);
    if (!own || !bound) continue;
    // At or below kFullOccupancyRegisters a kernel's registers limit no occupancy (and ptxas
    // raises a smaller .maxnreg to its own floor, 24 on sm_90, with a warning).
    bound = std::max(*bound, kFullOccupancyRegisters);
    if (*own <= *bound) continue;
    // (In relocatable code a .maxnreg below a separately compiled callee's count is refused; the
    // module's cap bounds both there.)
    if (relocatable && !separatelyCompiledCallee(*f, module).empty()) continue;
    twin->registerLimit = *bound;
    auto maxnreg = std::find_if(f->attributes.begin(), f->attributes.end(),
                                [](const FunctionAttribute& a) { return a.directive == ".maxnreg"; });
    if (maxnreg == f->attributes.end()) {
      FunctionAttribute a;
      a.directive = ".maxnreg";
      f->attributes.push_back(std::move(a));
      maxnreg = std::prev(f->attributes.end());
    }
    maxnreg->arguments = {std::to_string(*bound)};
  }
}

}  // namespace cucatch::instrument
