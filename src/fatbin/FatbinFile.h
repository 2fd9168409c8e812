// The fatbinaries in a file: an ELF file's fatbinary sections (mapped, nothing copied), or the
// whole of a raw .fatbin file (read). What the listing and cucatch-fatbin extract both start from.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fatbin/ElfFile.h"
#include "fatbin/Fatbinary.h"

namespace cucatch::fatbin {

class FatbinFile {
 public:
  struct Region {
    std::string section;  // "" for a raw fatbinary file
    std::span<const uint8_t> bytes;
  };

  // Throws std::runtime_error naming `path` when it cannot be read.
  explicit FatbinFile(const std::string& path);

  const std::string& path() const { return path_; }
  // Valid while this object lives.
  const std::vector<Region>& regions() const { return regions_; }
  // parse(region.bytes), its FormatError rethrown as std::runtime_error naming the file (and
  // the section).
  std::vector<Container> containers(const Region& region) const;

 private:
  std::string path_;
  std::vector<uint8_t> raw_;     // a raw fatbinary file's bytes
  std::unique_ptr<ElfFile> elf_;  // or the ELF file its sections are mapped from
  std::vector<Region> regions_;
};

}  // namespace cucatch::fatbin
