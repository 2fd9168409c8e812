// The rewrite of one compilation unit, as cucatch-nvcc, cucatch-ptx and JIT mode run it: the
// passes in order, the register limits that keep every launch the original accepted, and what
// every instrumented module carries for the runtime.
#pragma once

#include <optional>

#include "instrument/RegisterLimit.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

struct InstrumentOptions {
  bool emitSiteTable = true;  // the JSON site table as a module variable
  // With the original kernels' registers: cap each instrumented kernel (RegisterLimit.h).
  // Without: no cap (the instrumented kernels may accept smaller blocks than the originals).
  std::optional<RegisterLimitOptions> registerLimit;
};

// Instruments `module` in place. Throws std::runtime_error for modules it must refuse (already
// instrumented, or using cucatch's reserved names).
UnitResult instrumentModule(ptx::Module& module, const InstrumentOptions& options = {});

}  // namespace cucatch::instrument
