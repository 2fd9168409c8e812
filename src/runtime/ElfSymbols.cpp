#include "runtime/ElfSymbols.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace cucatch::runtime {

namespace {

// Reads `count` bytes at `offset` (only the headers and the symbol and string tables are read:
// a library can be a gigabyte of device code).
bool readAt(std::ifstream& in, uint64_t offset, void* out, uint64_t count) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  return in.read(static_cast<char*>(out), static_cast<std::streamsize>(count)).good();
}

}  // namespace

ElfSymbols ElfSymbols::load(const std::string& path) {
  ElfSymbols table;
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header;
  if (!in || !readAt(in, 0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
    return table;
  table.pie_ = header.e_type == ET_DYN;
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!readAt(in, header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return table;
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    std::vector<Elf64_Sym> symbols(symtab.sh_size / sizeof(Elf64_Sym));
    std::string names(strtab.sh_size, '\0');
    if (!readAt(in, symtab.sh_offset, symbols.data(), symbols.size() * sizeof(Elf64_Sym)) ||
        !readAt(in, strtab.sh_offset, names.data(), names.size()))
      continue;
    for (const Elf64_Sym& sym : symbols) {
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 || sym.st_name >= names.size()) continue;
      table.functions_.push_back({sym.st_value, sym.st_size, std::string(names.c_str() + sym.st_name)});
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

bool ElfSymbols::defines(std::string_view name) const {
  return std::any_of(functions_.begin(), functions_.end(), [&](const Function& f) { return f.name == name; });
}

}  // namespace cucatch::runtime
