// Launch validity under instrumentation: an instrumented kernel must accept every block size
// the original accepted. What bounds a kernel's block size (with no launch bounds of its own) is
// its register count: the registers of all warps of a block must fit in the multiprocessor's
// per-block register file. Instrumentation adds registers, so each instrumented kernel gets a
// `.maxnreg` cap, computed from the original's register count, under which ptxas must fit it
// (spilling where it has to) -- the largest cap that still admits the original's largest block.
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

#include "ptx/IR.h"

namespace cucatch::instrument {

// The register file limits of one architecture (CUDA programming guide, "Technical
// Specifications per Compute Capability").
struct RegisterFileLimits {
  unsigned registersPerBlock = 65536;
  unsigned allocationUnit = 256;  // registers are allocated per warp in units of this many
  unsigned maxRegistersPerThread = 255;
  unsigned maxThreadsPerBlock = 1024;
  unsigned warpSize = 32;
};
// For "sm_90", "sm_90a", "sm_100f", "compute_80", ...; nullopt when the name is not one.
std::optional<RegisterFileLimits> registerFileLimits(std::string_view arch);

// The largest block a kernel using `registers` registers per thread can be launched with.
unsigned maxThreadsPerBlock(unsigned registers, const RegisterFileLimits& limits);
// The most registers per thread under which a block of `threads` threads still launches.
unsigned registerCapFor(unsigned threads, const RegisterFileLimits& limits);

// What was decided for one kernel of the module (it goes into the unit's site table, and the
// runtime names it when a launch fails for resources).
struct KernelLimit {
  std::string name;
  std::optional<unsigned> originalRegisters;  // measured by ptxas on the original module
  std::optional<unsigned> registerLimit;      // the .maxnreg given to the instrumented kernel
  std::string boundedBy;                      // ".maxntid", ".reqntid", ".maxnreg" of its own, or ""
};

struct RegisterLimitOptions {
  RegisterFileLimits limits;
  // Registers of each kernel of the original module; kernels missing here get no cap.
  std::map<std::string, unsigned> originalRegisters;
  // ptxas -maxrregcount in force: `.maxnreg` overrides it, so the cap never exceeds it.
  std::optional<unsigned> maxRegisterCount;
};

// Gives every kernel (`.entry` with a body) in `module` that has no launch bounds of its own a
// `.maxnreg` that keeps its original's largest block launchable. Returns one entry per kernel.
std::vector<KernelLimit> limitKernelRegisters(ptx::Module& module, const RegisterLimitOptions& options);

// The kernels of `module` and the launch bounds they declare, without changing anything.
std::vector<KernelLimit> kernelsOf(const ptx::Module& module);

}  // namespace cucatch::instrument
