// Kernels whose pointer parameters' bounds come with the launch (issue 13). A kernel reads the
// metadata of each pointer parameter from the tables at entry (READMETADATA: the tag, a BST
// entry, the shadow walk for an untagged pointer) in every thread, where a kernel that touches
// one element per thread spends most of what its checks cost. The host knows those bounds at the
// launch: the runtime's mirror of the tables holds what the kernel would read, for a program whose
// streams are ordered as it launches.
//
// So each such kernel K gets a twin, K__cc_launch: the same body, instrumented the same way, but
// each pointer parameter takes its base, size and metadata word from three parameters after its
// own (as a device function takes them from its callers, MetadataParams.h). The runtime launches
// the twin in K's place where it fills those parameters itself (docs/runtime.md); everywhere else
// (a launch it does not rewrite, a graph, a launch from the device) K runs as before. The site
// table names the twin and the parameters it takes bounds for (`kernels.K.launch`).
//
// Not for a kernel of a module with debug sections (its DWARF names the kernel's labels, which
// the twin would repeat), nor one that declares a `.global` or `.const` variable in its body (the
// twin would have its own), nor where the twin's parameters would pass the 4 KiB a kernel's
// parameters may take on every architecture. The twin takes no more registers than its kernel
// where that could lower its occupancy (RegisterLimit's boundTwinRegisters): a program that sizes
// its grid by the kernel's occupancy gets at least that occupancy from the twin.
#pragma once

#include <vector>

#include "analysis/PointerAnalysis.h"
#include "instrument/MetadataParams.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

// Adds a twin after each kernel of `module` that has pointer parameters: 64-bit scalars some
// access's address is made from (MetadataParams' pointerParams), or that a call hands to a
// function taking their bounds (`metadataParams`, the module's without twins: a twin's calls are
// its kernel's); records each twin's in `metadataParams` and returns the twins. Call before the
// checks, so that the twin is checked as its kernel is.
std::vector<LaunchTwin> addLaunchTwins(ptx::Module& module, const analysis::SymbolTable& moduleSymbols,
                                       MetadataParams& metadataParams);

}  // namespace cucatch::instrument
