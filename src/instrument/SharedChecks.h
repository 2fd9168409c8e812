// The shared-memory pass: every access to the shared window through a 32-bit address made
// from a `__shared__` variable's symbol is checked against that variable (its declared size;
// for `extern __shared__`, the launch's %dynamic_smem_size), not against the whole window, so
// an overflow into the neighbouring array is caught. No table: the bounds travel in two 32-bit
// registers beside each address register, and the check is arithmetic.
#pragma once

#include "instrument/FunctionChecks.h"

namespace cucatch::instrument {

// Adds the checks of `f`'s shared-space accesses to its edits, sites and stats.
void checkSharedAccesses(FunctionChecks& f);

}  // namespace cucatch::instrument
