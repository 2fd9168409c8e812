#include "instrument/Instrument.h"

#include <algorithm>

#include "instrument/DeviceHeap.h"
#include "instrument/ExternalCalls.h"
#include "instrument/FrameTable.h"
#include "instrument/FrameTags.h"
#include "instrument/FunctionChecks.h"
#include "instrument/GlobalChecks.h"
#include "instrument/LaunchMetadata.h"
#include "instrument/LocalChecks.h"
#include "instrument/MetadataParams.h"
#include "instrument/RelocatableCalls.h"
#include "instrument/SharedChecks.h"
#include "instrument/StackReserve.h"
#include "instrument/WarpSync.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::instrument {

namespace {

// Relocatable code: the unit's part of the linked module's call graph (StackReserve.h), which the
// runtime joins with the other units'.
void recordCallGraph(const ptx::Module& probe, const std::map<std::string, unsigned>& original,
                     const std::map<std::string, unsigned>& frames, const std::set<std::string>& forwarders,
                     UnitResult& unit) {
  unit.callGraph = callGraphOf(probe, original, frames, forwarders);
  for (const ptx::Function* f : probe.functions())
    if (f->hasBody && f->linkage.empty()) unit.localFunctions.insert(f->name);
}

}  // namespace

UnitResult instrumentModule(ptx::Module& module, const InstrumentOptions& options) {
  refuseInstrumented(module);
  refuseUnsupported(module);
  UnitResult unit;
  unit.unit = unitId(module);
  // Before the checks, which instrument the forwarders with the rest.
  MetadataEntryPoints entryPoints;
  if (!options.wholeProgram) entryPoints = addMetadataEntryPoints(module, unit);
  // The check passes share each function's analysis; the function's report block and
  // declarations are added once, after all of them.
  const analysis::SymbolTable symbols = analysis::moduleSymbols(module);
  const ptx::VersionDirective* version = module.version();
  CheckOptions checkOptions;
  checkOptions.sharedWindowKnown =
      version && (version->major() > 4 || (version->major() == 4 && version->minor() >= 1));
  checkOptions.dynamicSharedParts = options.dynamicSharedParts;
  checkOptions.localObjects = options.localObjects;
  checkOptions.coalesce = options.coalesceChecks;
  checkOptions.removeDominated = options.removeDominatedChecks;
  checkOptions.families = options.familyChecks;
  checkOptions.guardedFamilies = options.guardedFamilyChecks && !hasDebugSections(module);
  checkOptions.loopRanges = options.loopRangeChecks;
  checkOptions.launchVersions = options.launchVersions && !hasDebugSections(module);
  checkOptions.dynamicShared = CUCATCH_DYNAMIC_SMEM_SYMBOL;
  for (const auto& [name, info] : symbols)
    if (info.dynamicShared && (checkOptions.dynamicShared == CUCATCH_DYNAMIC_SMEM_SYMBOL || name < checkOptions.dynamicShared))
      checkOptions.dynamicShared = name;  // (the first by name, so that the output is stable)
  // First, so that the checks see the wrappers' results as they saw malloc's, and so that the
  // pointers handed to free reach its wrapper tagged.
  redirectDeviceHeapCalls(module, unit);
  checkOptions.deviceHeapEntries = deviceHeapEntriesMayChange(module, unit, options.wholeProgram);
  MetadataParams metadataParams = metadataParamsOf(module, symbols, options.wholeProgram, entryPoints.names);
  // A twin's pointer parameters take their metadata from the launch (its calls are its kernel's,
  // so the module's metadata parameters are the same with it).
  if (options.launchMetadata) unit.launchTwins = addLaunchTwins(module, symbols, metadataParams);
  checkOptions.metadataParams = &metadataParams;
  const std::set<std::string> resync = options.warpResync ? warpResyncKernels(module) : std::set<std::string>{};
  checkOptions.warpResyncKernels = &resync;
  const std::set<std::string> barrierFunctions = blockBarrierFunctions(module);
  const FrameTable frameTable = frameTableOf(module, options.wholeProgram);
  checkOptions.frameTable = &frameTable;
  std::vector<std::unique_ptr<FunctionChecks>> functions;
  // A launch twin's accesses are its kernel's, counted once (--stats): its passes' counts are
  // put back, its sites kept.
  auto uncounted = [&](const ptx::Function& f, auto&& pass) {
    if (!isLaunchTwin(f.name)) return pass();
    const Stats counted = unit.stats;
    pass();
    unit.stats = counted;
  };
  for (ptx::Function* f : module.functions()) {
    if (!f->hasBody) continue;
    auto checks = std::make_unique<FunctionChecks>(*f, symbols, unit, checkOptions);
    uncounted(*f, [&] {
      checkGlobalAccesses(*checks);
      checkSharedAccesses(*checks);
      checkLocalAccesses(*checks);
      resyncWarpCollectives(*checks);
      resyncBeforeBarrierCalls(*checks, barrierFunctions);
    });
    functions.push_back(std::move(checks));
  }
  // Which functions take the frame table follows from where every function's checks look
  // pointers up in it; which tag their frames, from that: only then is it known whether a
  // function must untag what a tag would reach.
  const FrameTableUse tableUse = frameTableUse(module, frameTable, unit.frameLookups);
  const FrameTags frameTags = frameTagsOf(functions, tableUse, module, options.wholeProgram);
  unit.stats.frameTagsOff = frameTags.off;
  for (auto& checks : functions) {
    uncounted(checks->function, [&] {
      addFrameTags(*checks, frameTags);
      checks->finish();
    });
  }
  unit.stats.launchTwins = unit.launchTwins.size();
  functions.clear();
  addMetadataParams(module, metadataParams);
  addFrameTable(module, frameTable, tableUse, frameTags.functions, symbols, unit);
  // After the checks, which refuse functions that already use cucatch's register names.
  untagExternalCallArguments(module, unit, checkOptions.deviceHeapEntries, frameTags.any());
  unit.kernels = kernelsOf(module);
  if (const auto& setup = options.registerLimit) {
    // The kernels as they will be compiled: with the unit's declarations (what the checks
    // reference), without caps.
    ptx::Module probe = module;
    addUnitDeclarations(probe, unit);
    RegisterLimitOptions limit;
    limit.limits = setup->limits;
    limit.maxRegisterCount = setup->maxRegisterCount;
    limit.relocatable = setup->relocatable;
    const PtxasCounts instrumented = setup->measureInstrumented(probe);
    limit.instrumentedRegisters = instrumented.registers;
    std::optional<PtxasCounts> original;
    auto measuredOriginal = [&]() -> const PtxasCounts& {
      if (!original) original = setup->measureOriginal();
      return *original;
    };
    // (Relocatable code: what kernels call is not in their measured counts, so the original's
    // largest blocks are always needed.)
    if (setup->relocatable || needsOriginalRegisters(unit.kernels, limit.instrumentedRegisters, setup->limits))
      limit.originalRegisters = measuredOriginal().registers;
    unit.kernels = limitKernelRegisters(module, limit);
    boundTwinRegisters(module, unit.kernels, setup->relocatable);
    unit.deviceFunctions = limitDeviceFunctionRegisters(module, limit);
    // The frames as compiled: a kernel capped above, or a relocatable module under its
    // -maxrregcount, may spill into a larger one.
    auto framesAsCompiled = [&] {
      const auto cap = moduleRegisterCap(unit.kernels, unit.deviceFunctions);  // (relocatable code only)
      if (!cap && std::none_of(unit.kernels.begin(), unit.kernels.end(), [](const FunctionLimit& k) { return k.registerLimit; }))
        return instrumented.stackFrames;
      ptx::Module capped = module;
      addUnitDeclarations(capped, unit);
      return (cap && setup->measureInstrumentedCapped ? setup->measureInstrumentedCapped(capped, *cap)
                                                      : setup->measureInstrumented(capped))
          .stackFrames;
    };
    if (setup->relocatable) {
      // The unit's part of the linked module's call graph, which the runtime joins with the
      // other units' (StackReserve.h).
      recordCallGraph(probe, measuredOriginal().stackFrames, framesAsCompiled(), entryPoints.forwarders, unit);
    } else if (!kernelsWithUnsizedStack(probe).empty()) {
      const std::map<std::string, unsigned> frames = framesAsCompiled();
      StackReserves reserves = stackReserves(probe, measuredOriginal().stackFrames, frames, entryPoints.forwarders);
      unit.stackReserves = std::move(reserves.kernels);
      unit.stackUnbounded = std::move(reserves.unbounded);
    }
  }
  if (const auto& measure = options.relocatableFrames; measure && !options.registerLimit) {
    ptx::Module probe = module;
    addUnitDeclarations(probe, unit);
    recordCallGraph(probe, measure->measureOriginal().stackFrames, measure->measureInstrumented(probe).stackFrames,
                    entryPoints.forwarders, unit);
  }
  addUnitDeclarations(module, unit);
  return unit;
}

}  // namespace cucatch::instrument
