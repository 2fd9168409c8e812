// Reading a loaded object's dynamic section (PT_DYNAMIC, link_map::l_ld), shared by the GOT
// rebinding and the allocation-origin rule.
#pragma once

#include <link.h>

#include <cstdint>

namespace cucatch::runtime {

// The address a pointer-valued dynamic entry (DT_STRTAB, DT_SYMTAB, DT_RELA, ...) names in an
// object loaded at `base`: most loaders relocate these in place, some leave them as offsets.
inline uintptr_t dynamicAddress(ElfW(Addr) entry, uintptr_t base) { return entry < base ? entry + base : entry; }

}  // namespace cucatch::runtime
