#include "toolchain/RegisterLimits.h"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "instrument/StackReserve.h"
#include "ptx/Printer.h"
#include "toolchain/Ptxas.h"

namespace cucatch::toolchain {

instrument::RegisterLimitSetup ptxasRegisterLimits(const std::string& ptxas, const std::string& arch,
                                                   const std::vector<std::string>& options, std::string originalPtx,
                                                   const std::string& sourceName, const std::string& reuseDirectory) {
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
  // A whole-program module is compiled as nvcc's ptxas will compile it, and its kernels'
  // counts read from the object, which cucatch-nvcc's ptxas can then take instead of compiling
  // the same text again (CubinReuse.h). Not where frames are needed, which only ptxas -v gives:
  // relocatable code (its site table's call graph) and a kernel whose stack ptxas cannot size
  // (StackReserve.h). (In both the measurement's results go into the text, so no object of it
  // could be taken anyway.)
  const bool relocatable = setup.relocatable;
  auto measureInstrumented = [=](const ptx::Module& instrumented, const std::vector<std::string>& with) {
    const std::string text = ptx::print(instrumented);
    if (relocatable || !instrument::kernelsWithUnsizedStack(instrumented).empty())
      return everyFunction(measureRegisters(ptxas, arch, with, text, "the instrumented module"));
    std::set<std::string> kernels;
    for (const auto* f : instrumented.functions())
      if (f->isEntry) kernels.insert(f->name);
    return everyFunction(measureFromObject(ptxas, arch, with, text, kernels, "the instrumented module", reuseDirectory));
  };
  setup.measureInstrumented = [measureInstrumented, options](const ptx::Module& instrumented) {
    return measureInstrumented(instrumented, options);
  };
  setup.measureInstrumentedCapped = [measureInstrumented, options](const ptx::Module& instrumented,
                                                                  unsigned registers) {
    return measureInstrumented(instrumented, withMaxRegisterCount(options, registers));
  };
  setup.measureOriginal = [ptxas, arch, options, original = std::move(originalPtx), everyFunction] {
    return everyFunction(measureRegisters(ptxas, arch, options, original, "the original module"));
  };
  return setup;
}

}  // namespace cucatch::toolchain
