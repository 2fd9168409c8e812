// Programs linked with -lcuda call driver entry points by symbol. libcucatch exports the ones
// it wraps under the same names, which wins where libcucatch comes first in the dynamic
// linker's search order (cucatch-run preloads it). Where the program was linked with libcuda
// first (a CMake link line puts the implicit libraries last), the references are already bound
// to libcuda: rebindReferences points them at libcucatch's definitions, by rewriting GOT slots
// of every loaded object but libcuda and libcucatch (the PLT slots of calls, the slots of
// functions whose address is taken, data initialized with such an address).
//
// A slot is rewritten only when its symbol is undefined in the object and the slot still holds
// the definition the loader bound (or, with lazy binding, the object's own PLT stub): a slot a
// program reassigned, or that another interposer took, is left alone.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>

namespace cucatch::runtime {

struct RebindTargets {
  // Symbol name -> libcucatch's definition.
  const std::unordered_map<std::string, void*>* definitions = nullptr;
  // The definition the loader would bind instead (libcuda's, a library's); nullptr if none.
  std::function<void*(const std::string&)> foreign;
  const void* self = nullptr;  // any address in libcucatch
};

// Objects already rebound are skipped, and when the loader has loaded and unloaded nothing since
// the last call it returns at once (one callback, no lock), so it is cheap to call on every
// allocation and launch. An object another thread is still loading is waited for (dlopen with
// RTLD_NOLOAD takes the loader's lock), never rewritten half-relocated. Another thread's call
// under way is waited for 100 ms at most, and a call from this thread's own (a destructor run by
// its dlclose) not at all: such a call returns 0 and a later one looks again (the caller may be a
// library's constructor, run under the loader's lock that call waits for). Must not be called
// from inside dl_iterate_phdr. Returns how many slots it rewrote.
size_t rebindReferences(const RebindTargets& targets);

}  // namespace cucatch::runtime
