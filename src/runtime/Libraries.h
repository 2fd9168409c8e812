// The API boundaries of precompiled CUDA libraries whose kernels read the pointers they are
// given from device memory (descriptors the library uploads itself), where no launch can untag
// them: the pointers are untagged on their way in. libcucatch exports these under the
// libraries' names; like the driver's, references bound to the library are rebound
// (Rebind.h), and a lookup by name in the library's own handle (dlsym) gets the wrapper
// (Interposer.cpp, libraryWrapper). A library linked statically into the program cannot be
// intercepted this way.
//
// cuFFT: cufftExec* and cufftXtExec take the user's buffers, cufftSetWorkArea a work area.
// Batched cuBLAS and cuSOLVER calls take arrays of pointers in device memory: each gets an
// untagged copy made in the handle's stream (gen-pointer-arrays.py lists them from the headers).
// nvJitLink: PTX added to a link at run time is instrumented (JitLoader.h), as cuLinkAddData's.
// (Memory the library allocates itself stays untagged: Runtime::allocatedByLibrary.)
#pragma once

#include <string>
#include <unordered_map>

#include "runtime/ElfSymbols.h"

namespace cucatch::runtime {

// Symbol name -> libcucatch's definition, for every library entry point exported here.
const std::unordered_map<std::string, void*>& libraryDefinitions();
// The definition of `symbol` in a loaded object other than libcucatch (where the library comes
// first in the search order, RTLD_NEXT would not find it); nullptr if none.
void* libraryDefinition(const char* symbol);
// The definition libcucatch's wrapper of `symbol` calls now: libraryDefinition's answer, kept
// until the loader loads or unloads an object; nullptr if none, or if `symbol` is not wrapped.
void* libraryTarget(const char* symbol);

// Where cuFFT is linked statically into the program, so that its calls cannot be intercepted
// (-lcufft_static, which the cuda-samples callback programs need): the name of the wrapped
// entry point the program's full symbol table defines, or empty. Only the executable counts: a definition a shared object exports is
// interposed as the library's own is, and the library's own shared object may have any name (a
// renamed copy in a Python wheel). A stripped program, or a static copy hidden inside a shared
// object, is not seen.
std::string staticallyLinkedLibrary(const ElfSymbols& program);

}  // namespace cucatch::runtime
