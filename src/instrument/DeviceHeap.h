// The in-kernel heap: calls to malloc, __cuda_syscall_aligned_malloc (what
// __nv_aligned_device_malloc compiles to) and free, which `new` and `delete` reach too, go to
// wrappers cucatch defines in the module (Sequences.h: deviceHeapWrappers). The malloc
// wrappers give each block a BST entry of its own, written on the device, and a pointer tagged
// with its index, so that the checks GlobalChecks inserts bound every access through it by
// the block and see it freed; the free wrapper refuses and reports a double or invalid free.
// What each block's malloc and free were (site, block, thread) goes to a log in host memory,
// for the report (src/runtime/cucatch_abi.h, "the device heap").
//
// The calls keep their results and arguments; each gets one more argument, the call's site,
// which the wrappers record (a free refused is reported at its own site). Sizes and the heap
// limit are the program's: a block is exactly what it asked for, and a malloc the heap cannot
// serve returns null as it would have.
#pragma once

#include "instrument/Sequences.h"
#include "instrument/Unit.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

// Redirects every direct call to one of those functions (declared in the module without a
// body) and records its site; the wrappers the module then needs are in
// unit.heapFunctionsWrapped (addUnitDeclarations defines them). Run before the check passes,
// which see the wrapper's result as they saw malloc's: a pointer loaded from a call's return.
void redirectDeviceHeapCalls(ptx::Module& module, UnitResult& unit);

// How this unit's metadata reads must read device-heap entries (Sequences.h). From L2 where
// code running in one kernel with this unit's may malloc or free: the unit's own calls (after
// redirectDeviceHeapCalls), or, in relocatable code, another unit's: a device function others
// may call (.visible or .weak) runs in their kernels, and a call to a function declared without
// a body other than the CUDA system's (vprintf, __assertfail, the device runtime's cudaX...) or
// an indirect call is a call into another unit. Otherwise, as in every whole-program module without a malloc, through
// L1: the branch to the L2 read cost registers in every kernel (docs/overhead.md).
// `wholeProgram`: the module is all the code its kernels run (InstrumentOptions::wholeProgram).
// Whether a function the module declares without a body is the CUDA system's: printf, assert,
// the device runtime (the CUDA API's names, cudaX..., and the reserved __cuda...), the device heap.
bool isCudaSystemFunction(const std::string& name);

DeviceHeapEntries deviceHeapEntriesMayChange(const ptx::Module& module, const UnitResult& unit, bool wholeProgram);

}  // namespace cucatch::instrument
