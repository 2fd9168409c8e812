// What ptxas records about each function of a cubin in its `.nv.info` sections (the attributes
// cuobjdump -elf prints as EIATTR_*); docs/fatbinary.md, "Cubin attributes", says how far the
// layout is established. No CUDA.
#pragma once

#include <map>
#include <string>

#include "fatbin/ElfFile.h"

namespace cucatch::fatbin {

// Registers per thread of every function the cubin gives a count (EIATTR_REGCOUNT), by symbol
// name. In relocatable code (ptxas --compile-only) that is every function with a body, device
// functions included, which is where `ptxas -v` prints none. Throws std::runtime_error naming
// the file where an attribute overruns its section, names no symbol, or has a format not known.
std::map<std::string, unsigned> functionRegisterCounts(const ElfFile& cubin);

}  // namespace cucatch::fatbin
