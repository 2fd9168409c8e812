// The register caps of instrumentation (instrument/RegisterLimit.h), measured with ptxas: how
// cucatch-ptx (for cucatch-nvcc) and JIT mode's helper (cucatch-fatbin jit) learn what the
// original kernels cost, so that the instrumented ones launch wherever the originals did.
#pragma once

#include <string>
#include <vector>

#include "instrument/Instrument.h"

namespace cucatch::toolchain {

// A setup whose measurements compile `originalPtx` and the instrumented module with
// `ptxas -arch=ARCH OPTIONS` (kernels, and in relocatable code device functions alike). Where
// ptxas's object does not let the device functions be read, a warning naming `sourceName` goes
// to stderr. Where `reuseDirectory` is given, the instrumented module's objects stay there for
// cucatch-nvcc's ptxas (CubinReuse.h). Throws std::runtime_error when `arch`'s register file is
// not known.
instrument::RegisterLimitSetup ptxasRegisterLimits(const std::string& ptxas, const std::string& arch,
                                                   const std::vector<std::string>& options, std::string originalPtx,
                                                   const std::string& sourceName,
                                                   const std::string& reuseDirectory = "");

}  // namespace cucatch::toolchain
