// The local-memory pass: a `.local` access whose every base is a local variable of known size
// (nvcc's frame, `__local_depot<n>`, which holds the function's address-taken and dynamically
// indexed arrays; or a `.local` array of hand-written PTX) is checked against that variable:
// an index past the frame, or below it, into what lies beside it in the thread's local memory
// (the callers' and callees' frames, ptxas' spill slots), is reported. The variable's bounds
// are constants, made at the check (ptxas folds the symbol's address); an address proven
// inside the variable (its symbol plus bounded terms) needs none. The arrays inside one frame
// are not told apart: nvcc's PTX gives each a start (`add.u64 %rd, %SPL, 64`) but no size, and
// the constant of such an add may also be an element's offset folded in.
//
// Generic pointers into a frame (`cvta.local` of it: every local access of a debug build, and
// a pointer to a local array in its own function) are GlobalChecks': their metadata is the
// variable's, moved to generic addresses with the same cvta.
#pragma once

#include "instrument/FunctionChecks.h"

namespace cucatch::instrument {

// Adds the checks of `f`'s local-space accesses to its edits, sites and stats.
void checkLocalAccesses(FunctionChecks& f);

}  // namespace cucatch::instrument
