// The frame table: which local memory is live on a thread's stack, for device functions.
//
// A kernel knows that its own frame is the only local memory live while it runs
// (analysis::liveLocalBound). A device function does not: its callers' frames are live too, and
// where ptxas puts them is its own choice (a non-recursive callee's frame was seen above its
// kernel's). So a device function that meets a generic pointer of unknown origin in the local
// window (loaded from memory, returned by a call) could not tell a pointer into a live caller's
// array from one into a frame that has returned.
//
// Here each thread keeps a small table of the frames live on its stack (Sequences.h:
// kFrameTableEntries entries of local start, size and the frame's object), in its kernel's local
// memory: module-scope .local variables are refused with the ABI, and no special register names
// a thread stably enough to index a global table by, so the table's address goes to every
// device function that takes it as one more parameter, `__cc_frames`, after its own (and the
// metadata parameters, MetadataParams.h). A function pushes its local variables (nvcc's depot)
// at entry and each block an `alloca` makes, and restores the depth it met at every return;
// entries at and past the depth are frames that have returned, kept until a later call at that
// depth writes over them. GlobalChecks looks a pointer up (Sequences.h: frameLookupFunction):
// inside a live frame, it is checked against that frame; in none, every access through it is a
// use after scope, naming the returned frame where the table still holds it.
//
// Which functions may take it: those every call of which the rewrite sees and can give one more
// argument, as for MetadataParams: with a body, no linkage (.visible only in a module compiled
// whole), never named but as a direct call's callee, not variadic. Which do: those that look a
// pointer up (GlobalChecks decides), those that call one that does, transitively (their frames
// are the stack while a lookup runs), and those such functions call (a stale pointer a lookup
// meets points into such a frame: recorded, it is named). A kernel that calls one of the
// lookups' callers makes the table; a function without one (a .visible function of relocatable
// code) passes 0, and a function given 0 looks nothing up. So where a function has a table,
// every function on its thread's stack had it too and pushed its frames: a local address
// outside them all is in no live frame. Where no function looks anything up, no function or
// kernel changes: a kernel's table costs stack, 72 bytes more in each thread's frame, which a
// recursion near the stack limit may not have. What that needs of the module, or the table is off (`off` says why): no `alloca.u32`,
// and no device function that takes its own parameter's address (that local memory is in no
// frame the table records).
#pragma once

#include <set>
#include <string>

#include "analysis/PointerAnalysis.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

struct FrameTable {
  std::string off;                 // why the module keeps none; empty where it does
  std::set<std::string> eligible;  // device functions that may take the table from their callers
  bool mayTake(const std::string& function) const { return off.empty() && eligible.count(function) != 0; }
};

// The parameter a taker receives the table in.
inline constexpr const char* kFrameTableParameter = "__cc_frames";

// Which of `module`'s functions may take the table (before the rewrite: reads the module only).
// `wholeProgram` as for metadataParamsOf.
FrameTable frameTableOf(const ptx::Module& module, bool wholeProgram);

// Where `lookups` look pointers up in it (above): the functions on the way to a lookup (the
// lookups and their callers, transitively), and the functions that take the table (those, and
// what they call).
struct FrameTableUse {
  std::set<std::string> callers, takers;
};
FrameTableUse frameTableUse(const ptx::Module& module, const FrameTable& table, const std::set<std::string>& lookups);

// Adds the table where the unit's checks look pointers up in it (UnitResult::frameLookups): the
// parameter to the takers' signatures and an argument to every call of one, the table to each
// kernel that calls one, and the pushes and returns' restores. Call after every function's
// checks and addMetadataParams (the parameter comes after theirs).
void addFrameTable(ptx::Module& module, const FrameTable& table, const analysis::SymbolTable& moduleSymbols,
                   UnitResult& unit);

}  // namespace cucatch::instrument
