#include "fatbin/ElfFile.h"

#include "fatbin/Image.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace cucatch::fatbin {

ElfFile::ElfFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(fmt::format("{}: not a regular file", path));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ < sizeof(Elf64_Ehdr)) {
    ::close(fd);
    throw std::runtime_error(fmt::format("{}: not an ELF file (too short)", path));
  }
  void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw std::runtime_error(fmt::format("{}: cannot map: {}", path, std::strerror(errno)));
  data_ = static_cast<const uint8_t*>(map);
  mapped_ = true;
  readSections();
}

ElfFile::ElfFile(std::span<const uint8_t> bytes, std::string name) : path_(std::move(name)) {
  data_ = bytes.data();
  size_ = bytes.size();
  if (size_ < sizeof(Elf64_Ehdr)) throw std::runtime_error(fmt::format("{}: not an ELF file (too short)", path_));
  readSections();
}

void ElfFile::readSections() {
  auto fail = [&](const std::string& why) {
    if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = nullptr;
    throw std::runtime_error(fmt::format("{}: {}", path_, why));
  };
  Elf64_Ehdr eh;
  std::memcpy(&eh, data_, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) fail("not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) fail("not a 64-bit little-endian ELF file");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size_ ||
      uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > size_ - eh.e_shoff || eh.e_shstrndx >= eh.e_shnum)
    fail("malformed section headers");
  std::vector<Elf64_Shdr> headers(eh.e_shnum);
  std::memcpy(headers.data(), data_ + eh.e_shoff, headers.size() * sizeof(Elf64_Shdr));
  const Elf64_Shdr& names = headers[eh.e_shstrndx];
  if (names.sh_offset > size_ || names.sh_size > size_ - names.sh_offset) fail("malformed section names");
  for (const auto& h : headers) {
    Section s;
    s.type = h.sh_type;
    s.link = h.sh_link;
    if (h.sh_name < names.sh_size)
      s.name = std::string(reinterpret_cast<const char*>(data_ + names.sh_offset + h.sh_name),
                           strnlen(reinterpret_cast<const char*>(data_ + names.sh_offset + h.sh_name),
                                   names.sh_size - h.sh_name));
    // (Not CUDA's .nv.global either: an object of nvcc 13.0 with a 4 KiB `__device__` array,
    // whose section "ran past the file's end" before.)
    if (!sectionOccupiesNoBytes(h.sh_type)) {
      if (h.sh_offset > size_ || h.sh_size > size_ - h.sh_offset) fail(fmt::format("section {} overruns the file", s.name));
      s.bytes = std::span<const uint8_t>(data_ + h.sh_offset, h.sh_size);
    }
    sections_.push_back(std::move(s));
  }
}

std::vector<std::string> ElfFile::symbolNames() const {
  for (const Section& symtab : sections_) {
    if (symtab.type != SHT_SYMTAB) continue;
    if (symtab.link >= sections_.size())
      throw std::runtime_error(fmt::format("{}: the symbol table's names are in no section", path_));
    std::span<const uint8_t> table = symtab.bytes, names = sections_[symtab.link].bytes;
    std::vector<std::string> out;
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= table.size(); at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, table.data() + at, sizeof sym);
      if (sym.st_name >= names.size() && sym.st_name != 0)
        throw std::runtime_error(fmt::format("{}: symbol {} has its name outside the string table", path_, out.size()));
      const char* name = reinterpret_cast<const char*>(names.data()) + sym.st_name;
      out.emplace_back(sym.st_name == 0 ? std::string() : std::string(name, strnlen(name, names.size() - sym.st_name)));
    }
    return out;
  }
  return {};
}

ElfFile::~ElfFile() {
  if (data_ && mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::vector<ElfFile::Section> ElfFile::fatbinSections() const {
  std::vector<Section> out;
  for (const auto& s : sections_)
    if (s.name == ".nv_fatbin" || s.name == "__nv_relfatbin") out.push_back(s);
  return out;
}

}  // namespace cucatch::fatbin
