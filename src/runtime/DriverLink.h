// JIT mode's link of relocatable device code (jit/LinkInputs.h) by the driver, in place of the
// image nvlink made: JitLoader's Linker.
#pragma once

#include <string>
#include <vector>

#include "jit/LinkInputs.h"
#include "runtime/Driver.h"

namespace cucatch::runtime {

// Links `inputs` with the driver (cuLinkCreate ... cuLinkComplete) for the current context's
// device (else device 0's primary context), and returns the cubin; empty, with `why`, where it
// fails. Launch validity as for cucatch-nvcc's register caps (instrument/RegisterLimit.h): each
// kernel of the link must accept every block size the same kernel of `original` (the image the
// program loads, a fatbinary) accepts; where the first link, uncapped, makes one accept less,
// the units are linked again with the most registers per thread under which all do
// (CU_JIT_MAX_REGISTERS: like ptxas -maxrregcount, it bounds the device functions too). `why`
// is set on success too where the kernels could not be measured (linked without caps).
std::string linkInPlaceOf(const Driver& d, const std::vector<jit::LinkInput>& inputs, const void* original,
                          unsigned deviceArch, std::string& why);

}  // namespace cucatch::runtime
