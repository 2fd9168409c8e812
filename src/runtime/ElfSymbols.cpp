#include "runtime/ElfSymbols.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace cucatch::runtime {

namespace {

template <class T>
bool readAt(const std::vector<char>& file, uint64_t offset, T& out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

ElfSymbols ElfSymbols::load(const std::string& path) {
  ElfSymbols table;
  std::ifstream in(path, std::ios::binary);
  if (!in) return table;
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr header;
  if (!readAt(file, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
    return table;
  table.pie_ = header.e_type == ET_DYN;
  auto section = [&](uint32_t i, Elf64_Shdr& s) {
    return i < header.e_shnum && readAt(file, header.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), s);
  };
  for (uint32_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr symtab, strtab;
    if (!section(i, symtab) || symtab.sh_type != SHT_SYMTAB || !section(symtab.sh_link, strtab)) continue;
    if (strtab.sh_offset > file.size() || file.size() - strtab.sh_offset < strtab.sh_size) continue;
    for (uint64_t k = 0; k + sizeof(Elf64_Sym) <= symtab.sh_size; k += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (!readAt(file, symtab.sh_offset + k, sym)) break;
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 || sym.st_name >= strtab.sh_size) continue;
      const char* name = file.data() + strtab.sh_offset + sym.st_name;
      size_t length = strnlen(name, strtab.sh_size - sym.st_name);
      table.functions_.push_back({sym.st_value, sym.st_size, std::string(name, length)});
    }
  }
  std::sort(table.functions_.begin(), table.functions_.end(),
            [](const Function& a, const Function& b) { return a.start < b.start; });
  return table;
}

std::optional<ElfSymbols::Hit> ElfSymbols::find(uint64_t address) const {
  auto after = std::upper_bound(functions_.begin(), functions_.end(), address,
                                [](uint64_t a, const Function& f) { return a < f.start; });
  // Functions may nest (aliases, local labels with sizes): look back over those that start
  // at or before the address for one that contains it.
  for (auto it = after; it != functions_.begin();) {
    --it;
    if (address - it->start < it->size) return Hit{it->name, address - it->start};
    if (after - it > 8) break;
  }
  return std::nullopt;
}

}  // namespace cucatch::runtime
