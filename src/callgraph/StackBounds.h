// The stack a kernel needs under recursion, from its module's call graph and its functions' own
// frames (docs/design.md, "The stack under recursion"). Used where the rewrite sees the whole
// module (instrument/StackReserve.h), and by the runtime for relocatable code, whose call graph
// only the device link puts together: each unit's site table carries its part
// (runtime/Report.h, SiteTable::callGraph), and the runtime joins the parts of a module's units.
// No PTX, no CUDA.
//
// ptxas sizes a kernel's stack itself where its call graph has no cycle and no indirect call.
// Where it has either, the thread's stack is the context's limit (cudaLimitStackSize), and an
// instrumented function's larger frame can make a recursion that fitted the limit plain overflow
// it. A function in a cycle may be on the stack any number of times, and its frame grew by at
// most R, the largest ratio of instrumented to original frame over those functions; every other
// function is on a path at most once (twice would make a cycle through it), so its whole
// instrumented frame is added (C: the heaviest such sum along one call path; the strongly
// connected components form a DAG, and cycles weigh nothing there). A stack of S bytes the
// original ran in is then at most R * S + C instrumented. A forwarder the rewrite added (a
// function's forwarder to its private body, an entry point: instrument/RelocatableCalls.h) has
// no frame in the original: in a cycle, R counts the frames of all the cycle's forwarders with
// each original function's (a level of the recursion may pass through every one of them between
// two of its original frames), so that R * S still covers them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cucatch::callgraph {

struct Function {
  bool kernel = false;
  bool callsIndirectly = false;   // may reach every device function
  std::set<std::string> callees;  // direct calls, by name (a name with no Function: no frame here)
  uint64_t frame = 0;             // its own stack frame, as compiled
  uint64_t original = 0;          // ... and in the original (0: none, or the original had no such function)
  bool forwarder = false;         // added by the rewrite: only calls another function (its original is not used)
};
using Functions = std::map<std::string, Function>;  // every function with a body, by name

struct StackReserve {
  uint32_t ratioPerMille = 1000;  // R, rounded up
  uint64_t extraBytes = 0;        // C
};

struct StackReserves {
  std::map<std::string, StackReserve> kernels;  // by kernel name; none where no frame on its paths changed
  // Kernels whose stack cannot be bounded: a function in a cycle with no frame of its own in the
  // original (so the original's stack says nothing of how deep it went) has one instrumented.
  std::vector<std::string> unbounded;
};

// The kernels whose stack ptxas cannot size: a function their calls reach is in a cycle, or
// makes an indirect call.
std::vector<std::string> kernelsWithUnsizedStack(const Functions& functions);

// R and C for each of those kernels.
StackReserves stackReserves(const Functions& functions);

}  // namespace cucatch::callgraph
