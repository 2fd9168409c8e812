// Bounds that travel with pointers across compilation units (relocatable code: nvcc -rdc, CMake's
// CUDA_SEPARABLE_COMPILATION). MetadataParams adds parameters only to functions whose every
// call it sees; a .visible function of relocatable code may be called from another
// unit, and this unit's calls may reach another unit's function, so neither signature can
// change. So every such function gets a second entry point:
//
// - A function F defined here becomes `F__cc_meta`, its instrumented body, which takes base, size
//   and metadata word parameters for each 64-bit scalar parameter (the rule every cucatch unit
//   follows without seeing the body: a parameter that is an integer is given what READMETADATA
//   finds for its value, and not used); and F, with F's linkage and signature, which forwards to
//   it. F's callers that cucatch did not instrument (a library built with nvcc, a function
//   pointer) pass no bounds: F looks the pointers up as F did before.
// - This unit's direct calls of F, and of a function G another unit defines, go to
//   `F__cc_meta` / `G__cc_meta` with the bounds. For G, the unit also defines a .weak
//   `G__cc_meta` that forwards to G without them: the device linker keeps it only where no
//   unit defines a strong one, i.e. where G's unit was not instrumented (nvlink, CUDA 13.0:
//   a .visible definition wins over .weak ones in either order).
// - A .weak F (a template instance, an inline function) gets no entry point: several units may
//   define it, and nvlink keeps one of their definitions for every caller (in either link order
//   it kept the one of fewest registers, which is what lets a unit built with -maxrregcount
//   call it). A forwarder under F's name would always look the smallest and hide the body's
//   count behind it (a review's reproducer: nvlink then refused a capped plain unit's call, and
//   an instrumented kernel that had run with another unit's 32-register F ran with its own
//   86-register body); and a .weak body named F__cc_meta competed with other units' forwarders
//   of that name, one of which nvlink kept, so that F forwarded to itself for ever. F keeps its
//   instrumented body under its own name, and its callers' bounds stay behind (READMETADATA).
//
// Left as they are (the pointers' bounds are looked up in the callee, as before): variadic
// functions, functions with attributes (.noreturn, ...), parameters or return values of kinds a
// forwarder does not copy (several dimensions, types other than the fundamental ones), the CUDA
// system's functions (printf, the device runtime, the device heap), cucatch's own, and calls that
// do not store each argument with one st.param.
#pragma once

#include <set>
#include <string>

#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

// The functions that take metadata for every 64-bit scalar parameter (MetadataParams' rule for
// them): each `F__cc_meta` this unit defines or calls.
struct MetadataEntryPoints {
  std::set<std::string> names;
};

// Adds the entry points and forwarders to a relocatable module and sends its direct calls
// through them (before the checks: the forwarders are checked and instrumented like the rest).
MetadataEntryPoints addMetadataEntryPoints(ptx::Module& module, UnitResult& unit);

}  // namespace cucatch::instrument
