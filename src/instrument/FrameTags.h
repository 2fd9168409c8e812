// Frame tags: telling a pointer into a frame that returned from one into the frame a later call
// put at the same place.
//
// The frame table (FrameTable.h) records which frames are live on a thread's stack. A stale
// pointer into a frame that returned lies, once a later call at the same depth has pushed its
// own frame there, inside a live frame: by its address alone it looks like a pointer into that
// frame. So a device function that keeps the table and makes generic pointers into its own
// frame (`cvta.local` of its depot: nvcc's %SP) tags them with its call's serial (bits 48..55,
// abi::kFrameTagShift), and its table entry keeps the same serial; the lookup then tells the
// two apart (Sequences.h: frameLookupFunction).
//
// A tagged pointer must never reach what expects a plain address. In a module where some
// function tags, every function (a tagged pointer travels through parameters, memory and return
// values):
//  - accesses through the untagged copy of every generic address register (the checks'
//    accesses already do; here the rest: those proven in bounds, and those left unchecked);
//  - converts (`cvta.to.local`) the untagged copy;
//  - strips frame tags from the 64-bit values it stores into a printf's argument buffer
//    (vprintf reads `%s` and `%p` arguments as addresses, and prints them);
//  - and ExternalCalls strips them from the arguments of functions outside the module.
// (`isspacep` asks about the untagged copy already: GlobalChecks.) Pointers into one frame all
// carry the same tag, so comparing and subtracting them works as before; what changes is the
// value of a pointer into a tagging frame turned into an integer (as a global pointer's tag
// already does).
//
// A module whose code hands a pointer to code it may not hold the body of (a function declared
// only, other than the CUDA system's; in relocatable code, a .weak function or a call through a
// pointer, which the device linker may resolve to another unit's) tags nothing: that code gets
// the pointer stripped, and could hand back a pointer into the frame without the tag, which would
// then compare unequal to the tagged ones (a review's find). Nor does a module with a printf
// whose argument buffer is not known to be an array of its caller's frame (its arguments could
// not be stripped).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "instrument/FrameTable.h"
#include "instrument/FunctionChecks.h"

namespace cucatch::instrument {

struct FrameTags {
  std::set<std::string> functions;  // the device functions that tag their frame's pointers
  std::string off;                  // why none does, where one would
  bool any() const { return !functions.empty(); }
};

// Which of the checked functions of `module` tag: device functions that take the table
// (`use.takers`) and make a generic pointer into their own frame; none where the module hands
// pointers to code outside it (above; `wholeProgram` as for metadataParamsOf).
FrameTags frameTagsOf(const std::vector<std::unique_ptr<FunctionChecks>>& functions, const FrameTableUse& use,
                      const ptx::Module& module, bool wholeProgram);

// Adds to `f`'s edits (before `finish`) the tags where it tags, and, where the module has tags,
// the untagged copies above.
void addFrameTags(FunctionChecks& f, const FrameTags& tags);

}  // namespace cucatch::instrument
