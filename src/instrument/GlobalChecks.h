// The Shadow TBB pass for global memory: for every global or generic access whose address is
// a 64-bit register, metadata is read once at each base definition that reaches it, carried in
// registers alongside the pointer through arithmetic, copies and selects, and checked before
// the access, which then uses the untagged pointer.
#pragma once

#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

// Instruments the global and generic accesses of every function of `module` in place, adding
// their sites and stats to `unit`. Throws std::runtime_error for a function that already uses
// cucatch's reserved register names.
void instrumentGlobalAccesses(ptx::Module& module, UnitResult& unit);

}  // namespace cucatch::instrument
