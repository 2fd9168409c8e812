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
// pointer up (GlobalChecks decides), those that call one, transitively (their frames are the
// stack while a lookup runs); a kernel that calls one of those, or looks up itself (where it
// calls a function that may take the table: callsEligible), makes the table, and every
// function it calls, transitively, takes it too (a stale pointer a lookup meets points into the
// frame of one that returned: recorded, it is the frame the report names). A function without
// a table (a .visible function of relocatable code) passes 0, and a function given 0 looks
// nothing up. So where a function has a table, every function on its thread's stack had it too
// and pushed its frames: a local address outside them all is in no live frame. (The kernel's
// table is at a local address of its stack, high in the thread's local window, never 0.) Where
// no function looks anything up, no function or kernel changes: a kernel's table costs 72 bytes
// of each thread's stack, which a recursion near the stack limit may not have.
//
// What that needs of the module, or the table is off (`off` says why): no device function that
// takes the address of its own parameter or return value (that local memory is in no frame the
// table records), no `.local` variable declared in a nested scope or after a function's first
// instruction (its entry could not name it), no `stackrestore` (blocks it frees would stay in
// the table), no `alloca.u32`.
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

// Whether kernel `f` calls a function that may take the table. Such a kernel looks its own
// pointers up in a table too (making one where it does): its own frame is all that is live while
// it runs, as without one, but the table still holds the frame a stale pointer's function left,
// which the report then names.
bool callsEligible(const ptx::Function& f, const FrameTable& table);

// Where `lookups` (device functions and kernels) look pointers up in it (above): the functions
// on the way to a lookup (the device functions among the lookups and their callers,
// transitively), the kernels that make the table (lookups, and those that call one of those
// functions), and the functions that take it (those, and every function those kernels call,
// transitively).
struct FrameTableUse {
  std::set<std::string> callers, kernels, takers;
};
FrameTableUse frameTableUse(const ptx::Module& module, const FrameTable& table, const std::set<std::string>& lookups);

// Adds the table where the unit's checks look pointers up in it (`use`, frameTableUse of
// UnitResult::frameLookups): the parameter to the takers' signatures and an argument to every
// call of one, the table to each kernel that calls one, the pushes (with the call's serial) and
// returns' restores, and the frame tag of `taggers` (FrameTags.h). Call after every function's
// checks and addMetadataParams (the parameter comes after theirs).
void addFrameTable(ptx::Module& module, const FrameTable& table, const FrameTableUse& use,
                   const std::set<std::string>& taggers, const analysis::SymbolTable& moduleSymbols, UnitResult& unit);

}  // namespace cucatch::instrument
