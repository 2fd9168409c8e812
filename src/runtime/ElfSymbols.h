// Function names for host backtraces from an ELF file's full symbol table (.symtab). dladdr
// sees only the dynamic symbols, which an executable built without -rdynamic does not export:
// its frames (main, the program's own functions) would print as bare offsets. No CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cucatch::runtime {

class ElfSymbols {
 public:
  // Reads `path`'s .symtab (function symbols with a size). A file that cannot be read, is not
  // 64-bit ELF, or has been stripped gives an empty table, never an error.
  static ElfSymbols load(const std::string& path);

  struct Hit {
    std::string name;  // as in the file (mangled)
    uint64_t offset;   // from the function's start
  };
  // The function containing `address`, given as the symbols' own values count it: the offset
  // from the load base for position-independent files, the absolute address otherwise
  // (see `positionIndependent`).
  std::optional<Hit> find(uint64_t address) const;
  bool positionIndependent() const { return pie_; }
  // Whether the file defines a function named `name` (a linear search: for rare questions).
  bool defines(std::string_view name) const;
  size_t size() const { return functions_.size(); }

 private:
  struct Function {
    uint64_t start, size;
    std::string name;
  };
  std::vector<Function> functions_;  // sorted by start
  bool pie_ = true;
};

}  // namespace cucatch::runtime
