// An ELF file's sections, mapped read-only (a CUDA library can hold a gigabyte of device code:
// nothing is copied), or an ELF image in memory. Only what finding fatbinaries and reading a cubin's attributes need:
// section names, types and contents, and the symbol table. No CUDA.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cucatch::fatbin {

class ElfFile {
 public:
  // Throws std::runtime_error naming `path` when it cannot be read or is not a 64-bit
  // little-endian ELF file.
  explicit ElfFile(const std::string& path);
  // An ELF image in memory (a cubin taken out of a fatbinary), named `name` in errors; `bytes`
  // must outlive this object.
  ElfFile(std::span<const uint8_t> bytes, std::string name);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  struct Section {
    std::string name;
    uint32_t type = 0;               // SHT_*
    uint32_t link = 0;               // sh_link (a symbol table's: its string table)
    std::span<const uint8_t> bytes;  // empty for SHT_NOBITS and CUDA's shared-memory sections
  };
  const std::vector<Section>& sections() const { return sections_; }
  // The names of the symbol table's entries, by index (.symtab; empty where there is none).
  // Throws std::runtime_error naming the file where the table or its names overrun it.
  std::vector<std::string> symbolNames() const;
  // The sections that hold fatbinaries: .nv_fatbin (a program's or library's device code) and
  // __nv_relfatbin (relocatable device code, -rdc).
  std::vector<Section> fatbinSections() const;
  const std::string& path() const { return path_; }

 private:
  void readSections();  // throws as the constructors say

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;  // by the constructor from a path (unmapped by the destructor)
  std::vector<Section> sections_;
};

}  // namespace cucatch::fatbin
