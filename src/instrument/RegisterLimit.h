// Launch validity under instrumentation: an instrumented kernel must accept every block size
// the original accepted. What bounds a kernel's block size (with no launch bounds of its own) is
// its register count: the registers of all warps of a block must fit in the multiprocessor's
// per-block register file. Instrumentation adds registers, so an instrumented kernel that would
// accept a smaller block than its original gets a `.maxnreg` cap under which ptxas must fit it
// (spilling where it has to): the largest cap that still admits the original's largest block.
// Only those kernels: the directive changes ptxas's own choices even where the kernel fitted
// (measured on sm_90: 56 -> 62 registers, 48 -> 62), costing occupancy for nothing.
//
// Measured on sm_90 (ptxas 13.0): a conjugate-gradient kernel of 40 registers grew to 96
// instrumented; with `.maxnreg 64` ptxas fitted it in 64 with no spills.
//
// Kernels with `.maxntid`, `.reqntid` or `.maxnreg` of their own need no cap: ptxas keeps those
// for the instrumented kernel too. `.maxnreg` bounds the kernel's own code; a device function
// compiled separately (-rdc) is bounded only by ptxas -maxrregcount, which is why the runtime also
// reports a launch that fails for resources.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "instrument/RegisterFile.h"
#include "ptx/IR.h"

namespace cucatch::instrument {


// What was decided for one function of the module: a kernel (it goes into the unit's site
// table, and the runtime names it when a launch fails for resources), or, in relocatable code, a
// device function whose own count may narrow the blocks of a kernel that calls it.
struct FunctionLimit {
  std::string name;
  std::optional<unsigned> originalRegisters;      // measured by ptxas on the original module
  std::optional<unsigned> instrumentedRegisters;  // measured on the instrumented one, uncapped
  std::optional<unsigned> registerLimit;          // the .maxnreg given to the instrumented kernel
  std::string boundedBy;  // ".maxntid", ".reqntid", ".maxnreg" of its own, or ""
  // Why its cap is the whole module's (ptxas -maxrregcount) rather than its own `.maxnreg`: in
  // relocatable code the device functions it calls are compiled at their own counts, which
  // `.maxnreg` does not bound (and ptxas refuses a `.maxnreg` below a callee's count: "Entry
  // function ... with max regcount of 64 calls function ... with regcount of 86").
  std::string moduleCapBecause;
};

// The -maxrregcount the module must be compiled with for the kernels and device functions
// (limitKernelRegisters, limitDeviceFunctionRegisters) whose cap is the module's: the smallest
// of their caps; none when no function needs it.
std::optional<unsigned> moduleRegisterCap(const std::vector<FunctionLimit>& kernels,
                                          const std::vector<FunctionLimit>& deviceFunctions);

struct RegisterLimitOptions {
  RegisterFileLimits limits;
  // Registers of each kernel of the instrumented module (uncapped) and of the original; in
  // relocatable code also of each device function.
  std::map<std::string, unsigned> instrumentedRegisters, originalRegisters;
  // ptxas -maxrregcount in force: `.maxnreg` overrides it, so the cap never exceeds it.
  std::optional<unsigned> maxRegisterCount;
  bool relocatable = false;  // ptxas --compile-only (-rdc)
};

// Whether the instrumented kernel, at `instrumented` registers, may accept fewer threads per
// block than any original could: only then is the original's count needed.
bool mayNarrowBlocks(unsigned instrumented, const RegisterFileLimits& limits);
// Whether any of `kernels` without launch bounds of its own may narrow its blocks (or was not
// measured instrumented): only then is the original module worth a ptxas run.
bool needsOriginalRegisters(const std::vector<FunctionLimit>& kernels,
                            const std::map<std::string, unsigned>& instrumentedRegisters,
                            const RegisterFileLimits& limits);

// Gives every kernel (`.entry` with a body) in `module` without launch bounds of its own whose
// instrumented register count accepts a smaller block than its original's a `.maxnreg` that
// keeps the original's largest block launchable. A kernel that may narrow its blocks and whose
// original was not measured is capped for the largest block of all. Returns one entry per kernel.
std::vector<FunctionLimit> limitKernelRegisters(ptx::Module& module, const RegisterLimitOptions& options);

// Relocatable code only (empty otherwise): every device function with a body whose instrumented
// count accepts a smaller block than its original's, with the cap that keeps the original's
// largest block. After linking, a kernel runs with the largest count of everything it calls, and
// ptxas compiles each device function on its own, at its own count: a kernel of another unit
// calling a function that grew from 60 to 84 registers no longer launches with 1024 threads,
// and nothing in the kernel's own module can bound it. So the function's module gets the cap
// (ptxas -maxrregcount, moduleRegisterCap). Every such function counts, not only `.visible` ones:
// an internal function may be reached through a pointer (a virtual function's table).
std::vector<FunctionLimit> limitDeviceFunctionRegisters(const ptx::Module& module, const RegisterLimitOptions& options);

// The kernels of `module` and the launch bounds they declare, without changing anything.
std::vector<FunctionLimit> kernelsOf(const ptx::Module& module);

// A kernel's launch twin (LaunchMetadata.h) takes no more registers than its kernel, or than 32
// where the kernel takes fewer (no occupancy is lost below that): a program that sizes a grid by
// the kernel's occupancy (a persistent kernel whose blocks wait for each other) gets at least that
// occupancy from the twin. Gives each twin of `kernels` (as limitKernelRegisters left them) whose
// count is above that a `.maxnreg` of it. Not in relocatable code where the twin calls a function
// compiled on its own (ptxas refuses a .maxnreg below the callee's count; what the kernel's count
// is there is the device link's).
void boundTwinRegisters(ptx::Module& module, std::vector<FunctionLimit>& kernels, bool relocatable);

}  // namespace cucatch::instrument
