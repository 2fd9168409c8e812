// The rewrite of one compilation unit, as cucatch-nvcc, cucatch-ptx and JIT mode run it: the
// passes in order, the register limits that keep every launch the original accepted, and what
// every instrumented module carries for the runtime.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "instrument/RegisterLimit.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

// What the target's compiler gives a module's functions (the tools and JIT mode run ptxas): each
// kernel's registers, and in relocatable code each device function's; and each function's own
// stack frame in bytes (StackReserve.h).
struct PtxasCounts {
  std::map<std::string, unsigned> registers;
  std::map<std::string, unsigned> stackFrames;
};

struct RegisterLimitSetup {
  RegisterFileLimits limits;
  std::optional<unsigned> maxRegisterCount;  // -maxrregcount in force
  bool relocatable = false;                  // ptxas --compile-only (-rdc)
  // The instrumented module (as it will be compiled, uncapped), and the original one; the
  // original is only measured when some instrumented kernel may accept smaller blocks, or a
  // kernel's stack depends on the stack limit (StackReserve.h).
  std::function<PtxasCounts(const ptx::Module& instrumented)> measureInstrumented;
  std::function<PtxasCounts()> measureOriginal;
  // Relocatable code: the instrumented module compiled with -maxrregcount=N, the cap the module
  // gets where a function of it needs one (moduleRegisterCap): its frames as they will be.
  std::function<PtxasCounts(const ptx::Module& instrumented, unsigned maxRegisterCount)> measureInstrumentedCapped;
};

struct InstrumentOptions {
  // Without: no register caps (the instrumented kernels may accept smaller blocks than the
  // originals did).
  std::optional<RegisterLimitSetup> registerLimit;
  // Relocatable code that is not capped here (JIT mode, which has the driver link it again): how
  // to measure its frames for the unit's part of the call graph (StackReserve.h). Where
  // registerLimit is given, it measures them.
  std::optional<RegisterLimitSetup> relocatableFrames;
  // Check accesses to a kernel's dynamic shared memory against the part of it they address
  // (analysis/SharedParts.h), not only against the whole region: catches an overflow from one
  // carved array into the next, and reports correct code that indexes one dynamic array at
  // uniform offsets from below (a stencil's halo), so it is asked for, never the default.
  bool dynamicSharedParts = false;
  // Check a local access against the array of its frame it addresses (analysis/FrameLayout.h),
  // not only against the whole frame (cucatch-ptx --no-local-objects turns it off). It trusts
  // the starts nvcc materializes for a frame's arrays; nvcc 13.0 was not seen to start one
  // inside another (docs/design.md), and a frame where a bounded offset reaches from one array
  // into the next is checked whole (LocalChecks).
  bool localObjects = true;
  // Optimizations, each on by default and switchable so that its effect can be measured:
  // accesses through one address in straight-line code share one range check.
  bool coalesceChecks = true;
  // Leave out the check of an access whose range a dominating check already covered.
  bool removeDominatedChecks = true;
  // Check a family of accesses (analysis/AddressFamilies.h) at its lowest and highest address.
  bool familyChecks = true;
  // Test a family across guards at its extremes before its region, whose checked copy runs where
  // that fails (analysis/AddressFamilies.h, guardedFamilies; LaunchVersions.h).
  bool guardedFamilyChecks = true;
  // Check a strided loop's affine accesses once for the whole loop, before it (asked for:
  // cucatch-ptx --loop-ranges).
  bool loopRangeChecks = false;
  // Put a bar.warp.sync before the first warp-synchronous collective of a checked kernel whose
  // collectives all sit in one basic block (WarpSync.h).
  bool warpResync = true;
  // Give each kernel with pointer parameters a twin that takes their bounds from its launch
  // (LaunchMetadata.h), which the runtime launches in its place (cucatch-ptx
  // --no-launch-metadata turns it off).
  bool launchMetadata = true;
  // Give a kernel whose shared accesses are in bounds for every launch that satisfies a
  // condition on its block's dimensions and dynamic shared memory a second version of its body
  // without their checks, run where the launch satisfies it (LaunchVersions.h; cucatch-ptx
  // --no-launch-versions turns it off).
  bool launchVersions = true;
  // The module is all the device code its kernels run (compiled whole, not -rdc): its .visible
  // device functions are called from nowhere else, so their pointer parameters may take their
  // callers' metadata too (MetadataParams.h). Without it only functions without linkage do.
  bool wholeProgram = false;
};

// Instruments `module` in place. Throws std::runtime_error for modules it must refuse (already
// instrumented, or using cucatch's reserved names), and what the measurements throw.
UnitResult instrumentModule(ptx::Module& module, const InstrumentOptions& options = {});

}  // namespace cucatch::instrument
