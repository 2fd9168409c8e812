// The stack a kernel needs under recursion: an instrumented kernel must launch and run wherever
// its original did, also where its stack is what bounds it (callgraph/StackBounds.h says how R
// and C bound it; measured: 3 levels of a 312-byte frame that fit in 1016 of 1024 bytes plain
// needed 1224 instrumented).
//
// Here, a module's call graph with its functions' frames as ptxas gives them in both builds.
// A module compiled whole is all its kernels run: the rewrite gives each kernel whose stack
// ptxas cannot size its reserve, which the runtime applies before a kernel of the module runs
// (runtime/Runtime.h). Relocatable code's call graph crosses units, which only the device link
// puts together: each unit's site table carries the unit's part (callGraphOf) and the runtime
// joins the parts of a linked module's units.
//
// What this assumes: ptxas inlines the same functions into a recursive one in both builds (R is
// per function).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "callgraph/StackBounds.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

using callgraph::StackReserve;
using callgraph::StackReserves;

// The functions of `module` with a body, their calls, and their own frames: `frames` as compiled,
// `original` in the original module (by name: a function the original does not have, such as
// the frame-table lookup, had none; an entry point, private body or launch twin had its
// function's, whose body it is).
// `forwarders`: those the rewrite added (RelocatableCalls.h), which the original did not have.
callgraph::Functions callGraphOf(const ptx::Module& module, const std::map<std::string, unsigned>& original = {},
                                 const std::map<std::string, unsigned>& frames = {},
                                 const std::set<std::string>& forwarders = {});

// The kernels of `module` (whole) whose stack ptxas cannot size: a function their calls reach
// is in a cycle of the call graph, or makes an indirect call (which may reach any function).
std::vector<std::string> kernelsWithUnsizedStack(const ptx::Module& module);

// For the kernels of `instrumented` (the module as it will be compiled, whole) whose stack ptxas
// cannot size.
StackReserves stackReserves(const ptx::Module& instrumented, const std::map<std::string, unsigned>& original,
                            const std::map<std::string, unsigned>& frames, const std::set<std::string>& forwarders = {});

}  // namespace cucatch::instrument
