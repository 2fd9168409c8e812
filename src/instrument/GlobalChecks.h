// The Shadow TBB pass for global memory: for every global or generic access whose address is
// a 64-bit register, metadata is read once at each base definition that reaches it, carried in
// registers alongside the pointer through arithmetic, copies and selects, and checked before
// the access, which then uses the untagged pointer. Module variables (`__device__` in the
// global space, `__constant__` arrays in the const space) get static bounds instead.
#pragma once

#include "instrument/FunctionChecks.h"

namespace cucatch::instrument {

// Adds the checks of `f`'s global, generic and const accesses to its edits, sites and stats.
void checkGlobalAccesses(FunctionChecks& f);

}  // namespace cucatch::instrument
