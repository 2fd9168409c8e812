// Bounds that travel with pointers across compilation units (relocatable code: nvcc -rdc, CMake's
// CUDA_SEPARABLE_COMPILATION). MetadataParams adds parameters only to functions whose every
// call it sees, and the frame table (FrameTable.h) goes only to those; a .visible function of
// relocatable code may be called from another unit, and this unit's calls may reach another
// unit's function, so neither signature can change. So:
//
// - A .visible function F defined here gets a private body, `F__cc_body` (no linkage): F's
//   instrumented body, which this unit's own calls of F reach, so that MetadataParams and the
//   frame table treat it as they treat the unit's other functions (a pointer into a caller's
//   frame read from memory is looked up in the table: a use after scope, a callee overrunning
//   its caller's array). F keeps its name, linkage and signature as a forwarder to the body, for
//   callers cucatch did not instrument (a library built with nvcc, a function pointer): it looks
//   the pointers up as F did before, and passes no table.
// - Where F has a 64-bit scalar parameter it also gets an entry point for other instrumented
//   units, `F__cc_meta` (.visible), which takes base, size and metadata word parameters for each
//   (the rule every cucatch unit follows without seeing the body: a parameter that is an integer
//   is given what READMETADATA finds for its value, and not used) and forwards to the body.
//   This unit's direct calls of a function G another unit defines go to `G__cc_meta` with the
//   bounds, and the unit also defines a .weak `G__cc_meta` that forwards to G without them: the
//   device linker keeps it only where no unit defines a strong one, i.e. where G's unit was not
//   instrumented (nvlink, CUDA 13.0: a .visible definition wins over .weak ones in either order).
// - A .weak function F defined here (a template instance, an inline function: nvcc gives
//   `__attribute__((weak))` .visible) keeps its body under its name for other units, and gets a
//   private copy, `F__cc_body`, for this unit's direct calls (none where it has none: a virtual
//   function only a vtable names): the definitions of a .weak function are
//   one function (C++'s one-definition rule), so the unit may call its own as the compiler may
//   inline it. Under F's name nothing changes: nvlink keeps one of the units' definitions for
//   every caller (in either link order it kept the one of fewest registers, which is what lets a
//   unit built with -maxrregcount call it), and a forwarder under F's name would always look the
//   smallest and hide the body's count behind it (a review's reproducer: nvlink then refused a
//   capped plain unit's call, and an instrumented kernel that had run with another unit's
//   32-register F ran with its own 86-register body); and a .weak body named F__cc_meta competed
//   with other units' forwarders of that name, one of which nvlink kept, so that F forwarded to
//   itself for ever. Also in a module with DWARF (nvcc -G), whose .debug_info names labels of
//   F that the copy repeats: ptxas 13.0 binds them to F's (the object's .debug_info relocations
//   name F, as without the copy), and the copy's own code has its .loc lines.
//
// Left as they are (the pointers' bounds are looked up in the callee, as before): variadic
// functions, functions with attributes (.noreturn, ...), parameters or return values of kinds a
// forwarder does not copy (several dimensions, types other than the fundamental ones), the CUDA
// system's functions (printf, the device runtime, the device heap), cucatch's own, and calls of
// another unit's function that do not store each argument with one st.param.
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
  // Every forwarder added (F, F__cc_meta, and the .weak G__cc_meta of another unit's G): frames
  // the original did not have, which a recursion through them stacks beside its functions' own
  // (callgraph/StackBounds.h).
  std::set<std::string> forwarders;
};

// Adds the private bodies, entry points and forwarders to a relocatable module and sends its
// direct calls to them (before the checks: the forwarders are checked and instrumented like the
// rest).
MetadataEntryPoints addMetadataEntryPoints(ptx::Module& module, UnitResult& unit);

}  // namespace cucatch::instrument
