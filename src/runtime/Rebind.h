// Programs linked with -lcuda call driver entry points by symbol. libcucatch exports the ones
// it wraps under the same names, which wins where libcucatch comes first in the dynamic
// linker's search order (cucatch-run preloads it; cucatch-nvcc links it first). Where the
// program was linked with libcuda first (a CMake link line puts the implicit libraries last),
// the references are already bound to libcuda: rebindDriverReferences points them at
// libcucatch's definitions, by rewriting the GOT slots of every loaded object but libcuda and
// libcucatch (the PLT slots of calls, and the slots of functions whose address is taken).
#pragma once

#include <string>
#include <unordered_map>

namespace cucatch::runtime {

// `definitions`: symbol name -> libcucatch's definition. `self`: any address in libcucatch.
// Objects already looked at are skipped, and when the loader has loaded nothing since the last
// call it returns at once, so it is cheap to call on every allocation and launch. Returns how
// many slots it rewrote.
size_t rebindDriverReferences(const std::unordered_map<std::string, void*>& definitions, const void* self);

}  // namespace cucatch::runtime
