#include "instrument/Instrument.h"

#include "instrument/ExternalCalls.h"
#include "instrument/GlobalChecks.h"

namespace cucatch::instrument {

UnitResult instrumentModule(ptx::Module& module, const InstrumentOptions& options) {
  refuseInstrumented(module);
  UnitResult unit;
  unit.unit = unitId(module);
  instrumentGlobalAccesses(module, unit);
  // After the checks, which refuse functions that already use cucatch's register names.
  untagExternalCallArguments(module, unit);
  unit.kernels = options.registerLimit ? limitKernelRegisters(module, *options.registerLimit) : kernelsOf(module);
  addUnitDeclarations(module, unit, options.emitSiteTable);
  return unit;
}

}  // namespace cucatch::instrument
