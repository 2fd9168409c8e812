// The stack a kernel needs under recursion: an instrumented kernel must launch and run wherever
// its original did, also where its stack is what bounds it.
//
// ptxas sizes a kernel's stack itself where its call graph has no cycle and no indirect call, and
// the driver gives every launch that much. Where it has either (recursion, virtual functions),
// ptxas cannot, and the thread's stack is the context's limit (cudaLimitStackSize, 1 KiB by
// default): a recursion goes as deep as that allows. Instrumented, its functions' frames grow
// (the frame table, its serial and its address kept across calls, spills of the checks'
// registers), so a recursion that fitted the limit plain may not fit it instrumented: the kernel
// fails with an illegal address where the original ran (measured: 3 levels of a 312-byte frame
// that fit in 1016 of 1024 bytes plain needed 1224 instrumented).
//
// So the rewrite bounds what such a kernel needs, from the frames ptxas gives both modules: a
// function in a cycle of the call graph may be on the stack any number of times, and its frame
// grew by at most the ratio R, the largest of those functions' instrumented frame over its
// original one; every other function is on any path at most once (a second time would make a
// cycle through it), so its instrumented frame is added whole (C: the kernel's, the lookup's, a
// callee's that is not recursive; the heaviest such sum along one call path). A stack of S bytes the original ran in is then at most
// R * S + C instrumented, and the runtime raises the context's limit L the program asked for (or
// the default) to ceil(R * L) + C before a kernel of the module runs (runtime/Runtime.h), and
// reports L back when asked for the limit. Nothing where no function's frame changed.
//
// What this assumes: ptxas inlines the same functions into a recursive one in both builds (R is
// per function). Not for relocatable code: its call graph and frames cross units, which only the
// device link sees.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptx/IR.h"

namespace cucatch::instrument {

struct StackReserve {
  uint32_t ratioPerMille = 1000;  // R, rounded up
  uint64_t extraBytes = 0;        // C
};

// The kernels of `module` (whole) whose stack ptxas cannot size: a function their calls reach
// is in a cycle of the call graph, or makes an indirect call (which may reach any function).
std::vector<std::string> kernelsWithUnsizedStack(const ptx::Module& module);

struct StackReserves {
  std::map<std::string, StackReserve> kernels;  // by kernel name; none where no frame grew
  // Kernels whose stack cannot be bounded: a function in a cycle with no frame of its own in the
  // original (so the original's stack says nothing of how deep it went) has one instrumented.
  std::vector<std::string> unbounded;
};

// For the kernels of `instrumented` (the module as it will be compiled) whose stack ptxas cannot
// size, given every function's own frame in the original (`original`, by name: a function the
// original does not have, such as the frame-table lookup, had none) and in the instrumented module.
StackReserves stackReserves(const ptx::Module& instrumented, const std::map<std::string, unsigned>& original,
                            const std::map<std::string, unsigned>& frames);

}  // namespace cucatch::instrument
