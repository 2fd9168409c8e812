#include "fatbin/FatbinFile.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace cucatch::fatbin {

FatbinFile::FatbinFile(const std::string& path) : path_(path) {
  // A raw fatbinary file starts with the container magic.
  std::ifstream in(path, std::ios::binary);
  uint32_t magic = 0;
  if (!in || !in.read(reinterpret_cast<char*>(&magic), sizeof magic))
    throw std::runtime_error(fmt::format("{}: cannot read", path));
  if (magic == kContainerMagic) {
    raw_.assign(std::istreambuf_iterator<char>(in.seekg(0)), std::istreambuf_iterator<char>());
    regions_.push_back({"", raw_});
    return;
  }
  elf_ = std::make_unique<ElfFile>(path);
  for (const auto& s : elf_->fatbinSections()) regions_.push_back({s.name, s.bytes});
}

std::vector<Container> FatbinFile::containers(const Region& region) const {
  try {
    return parse(region.bytes);
  } catch (const FormatError& e) {
    if (region.section.empty()) throw std::runtime_error(fmt::format("{}: {}", path_, e.what()));
    throw std::runtime_error(fmt::format("{}: section {}: {}", path_, region.section, e.what()));
  }
}

}  // namespace cucatch::fatbin
