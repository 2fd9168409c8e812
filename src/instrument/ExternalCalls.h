// Pointers handed to device code cucatch did not instrument must be raw addresses: that code
// dereferences them as they are, and the GPU faults on a tagged pointer. The device runtime's
// functions (dynamic parallelism: launches, streams; its cudaMalloc and cudaFree go to the
// device heap's wrappers first, DeviceHeap.h) and any function declared but not defined in the
// module are such code. So every 64-bit argument of a
// direct call to a function without a body in this module that may hold a pointer is untagged
// on its way into the call's parameter, if it is a pointer the runtime tagged: its tag names a
// table entry with that tag, whose allocation it points into (READMETADATA, then a compare).
// Anything else, a 64-bit integer whatever its bits, passes unchanged.
//
// Under -rdc the callee may be instrumented code of another unit: it then finds the metadata of
// the untagged pointer through the shadow map and only the temporal tag is lost.
//
// In a module where device functions tag pointers into their frames (FrameTags.h, `frameTags`),
// such an argument's frame tag is stripped first (Sequences.h: stripFrameTag): a pointer into a
// frame handed to vprintf (its argument buffer) or to the device runtime (cudaGetDevice(&d)).
#pragma once

#include "instrument/Sequences.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

void untagExternalCallArguments(ptx::Module& module, UnitResult& unit, DeviceHeapEntries heapEntries,
                                bool frameTags);

}  // namespace cucatch::instrument
