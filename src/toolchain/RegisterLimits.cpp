#include "toolchain/RegisterLimits.h"

#include <stdexcept>

#include <fmt/format.h>

#include "ptx/Printer.h"
#include "toolchain/Ptxas.h"

namespace cucatch::toolchain {

instrument::RegisterLimitSetup ptxasRegisterLimits(const std::string& ptxas, const std::string& arch,
                                                   const std::vector<std::string>& options, std::string originalPtx,
                                                   const std::string& sourceName) {
  auto limits = instrument::registerFileLimits(arch);
  if (!limits) throw std::runtime_error(fmt::format("cannot tell the register file of target '{}'", arch));
  instrument::RegisterLimitSetup setup;
  setup.limits = *limits;
  setup.maxRegisterCount = maxRegisterCount(options);
  setup.relocatable = compilesRelocatable(options);
  // Kernels and (relocatable code) device functions: their names never collide.
  auto everyFunction = [sourceName](RegisterCounts counts) {
    if (!counts.deviceFunctionsUnread.empty())
      fmt::print(stderr, "{}: warning: {}; its device functions are not capped, and a kernel of another unit "
                         "calling one may not launch with the blocks it did\n",
                 sourceName, counts.deviceFunctionsUnread);
    counts.kernels.merge(counts.deviceFunctions);
    return instrument::PtxasCounts{std::move(counts.kernels), std::move(counts.stackFrames)};
  };
  setup.measureInstrumented = [ptxas, arch, options, everyFunction](const ptx::Module& instrumented) {
    return everyFunction(measureRegisters(ptxas, arch, options, ptx::print(instrumented), "the instrumented module"));
  };
  setup.measureInstrumentedCapped = [ptxas, arch, options, everyFunction](const ptx::Module& instrumented,
                                                                         unsigned registers) {
    return everyFunction(measureRegisters(ptxas, arch, withMaxRegisterCount(options, registers),
                                          ptx::print(instrumented), "the instrumented module"));
  };
  setup.measureOriginal = [ptxas, arch, options, original = std::move(originalPtx), everyFunction] {
    return everyFunction(measureRegisters(ptxas, arch, options, original, "the original module"));
  };
  return setup;
}

}  // namespace cucatch::toolchain
