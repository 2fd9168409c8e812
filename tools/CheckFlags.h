// The instrumentation switches of cucatch-ptx, in one place for the two tools that take them:
// cucatch-ptx (given them by cucatch-nvcc from CUCATCH_PTX_FLAGS) and JIT mode's helper
// (`cucatch-fatbin jit`, which reads CUCATCH_PTX_FLAGS itself), so that a module instrumented at
// run time is instrumented as cucatch-nvcc would have instrumented it.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>

#include "instrument/Instrument.h"

namespace cucatch::tools {

struct CheckFlags {
  bool sharedParts = false;
  bool noLocalObjects = false;
  bool noDominated = false;
  bool loopRanges = false;
  bool noCoalesce = false;
  bool noFamilies = false;
  bool noGuardedFamilies = false;
  bool noWarpResync = false;
  bool noLaunchMetadata = false;
  bool noLaunchVersions = false;
  bool localObjectsAsked = false;
  std::string registerLimit = "measure";  // or "none"

  void addTo(CLI::App& app) {
    app.add_flag("--shared-parts", sharedParts,
                 "check accesses to a kernel's dynamic shared memory against the part of it they address, where "
                 "the kernel carves it at uniform offsets (parameters, the dynamic size), not only against the "
                 "whole region. A heuristic: correct code that indexes one dynamic array at such an offset and "
                 "steps below it (a stencil's halo) is reported");
    app.add_flag("--no-local-objects", noLocalObjects,
                 "check a local-memory access against its function's whole frame only, not against the array of "
                 "the frame it addresses (by default an array starts where nvcc's PTX materializes its address and "
                 "ends where the next begins, so an overflow into the neighbouring array of the frame is reported; "
                 "were nvcc to start an array inside another, a correct index past that start would be too)");
    // (The default since 2026-11-27; still accepted, for the builds that asked for it.)
    app.add_flag("--local-objects", localObjectsAsked, "(the default) check local accesses against their arrays")
        ->group("");
    app.add_flag("--no-dominated", noDominated,
                 "give an access its own check also where a dominating access through the same, unchanged address "
                 "already checked a range that contains it (to measure what leaving those checks out saves)");
    app.add_flag("--loop-ranges", loopRanges,
                 "check the affine accesses of a strided loop once, before it, for the loop's whole range, and "
                 "jump over their own checks where that passes. Pays in loops of many iterations per thread; costs "
                 "in short ones (measured: a warp-per-row SpMV of 16 nonzeros per row ran 7% slower)");
    app.add_flag("--no-coalesce", noCoalesce,
                 "give every access its own check, where accesses through one address in straight-line code "
                 "would share one range check (to measure what coalescing saves)");
    app.add_flag("--no-families", noFamilies,
                 "give every access of a family its own check, where accesses whose addresses are one expression "
                 "at several constants, non-decreasing in it (a clamped stencil's taps), would be covered by checks "
                 "of the lowest and the highest (to measure what that saves)");
    app.add_flag("--no-guarded-families", noGuardedFamilies,
                 "give every access of a family across guards its own check, where accesses each under its own "
                 "condition (an unrolled `if (y + r < rows) ... in[(y + r) * cols + x]`) would be tested at the "
                 "family's lowest and highest address before them, and the code between run without their "
                 "checks where that passes (a copy with them where it fails)");
    app.add_flag("--no-warp-resync", noWarpResync,
                 "leave out the bar.warp.sync put before the first shfl.sync, vote.sync, match.sync or redux.sync of "
                 "a checked kernel whose warp collectives all sit in one basic block outside loops (without it "
                 "ptxas may compile them to their divergent form after a loop of checks: a warp-per-row SpMV ran "
                 "1.89x the plain time against 1.45x)");
    app.add_flag("--no-launch-metadata", noLaunchMetadata,
                 "give no kernel a launch twin: by default each kernel with pointer parameters gets a twin that "
                 "takes their bounds from its launch, which the runtime fills from its own tables and launches in "
                 "the kernel's place (CUCATCH_LAUNCH_METADATA=0 turns that off at run time), so that no thread "
                 "reads them from the tables; the kernel itself runs where the runtime does not rewrite the "
                 "launch (a graph, a stream being captured, packed arguments, a launch from the device). Measured: "
                 "a kernel touching one element per thread ran 1.07x the plain time against 1.43x without");
    app.add_flag("--no-launch-versions", noLaunchVersions,
                 "give no kernel a second version of its body: by default a kernel whose shared accesses are in "
                 "bounds for every launch whose block dimensions and dynamic shared memory satisfy a condition "
                 "(buf[t + blockDim.x] in 2 * blockDim.x elements) tests it once at entry and, where it holds, "
                 "runs a copy of its body without those checks");
    app.add_option("--register-limit", registerLimit,
                   "measure (default): compile the original with ptxas to learn each kernel's registers, and "
                   "cap each instrumented kernel (.maxnreg) so that every block size the original accepted still "
                   "launches; none: no cap")
        ->check(CLI::IsMember({"measure", "none"}));
  }

  // The rewriter's options (without the register caps, which need ptxas's measurements).
  instrument::InstrumentOptions options() const {
    instrument::InstrumentOptions o;
    o.dynamicSharedParts = sharedParts;
    o.localObjects = !noLocalObjects;
    o.coalesceChecks = !noCoalesce;
    o.removeDominatedChecks = !noDominated;
    o.familyChecks = !noFamilies;
    o.guardedFamilyChecks = !noGuardedFamilies;
    o.loopRangeChecks = loopRanges;
    o.warpResync = !noWarpResync;
    o.launchMetadata = !noLaunchMetadata;
    o.launchVersions = !noLaunchVersions;
    return o;
  }
  bool measureRegisters() const { return registerLimit == "measure"; }
  // What makes the output differ from the defaults' (part of the JIT cache's key).
  std::string describe() const {
    return fmt::format(
        "parts {} objects {} dominated {} loops {} coalesce {} families {} guarded {} resync {} launch {} versions {} "
        "limit {}",
        sharedParts, !noLocalObjects, !noDominated, loopRanges, !noCoalesce, !noFamilies, !noGuardedFamilies,
        !noWarpResync, !noLaunchMetadata, !noLaunchVersions, registerLimit);
  }
};

}  // namespace cucatch::tools
