// What a program hands the driver to load (cuModuleLoadData, cuLibraryLoadData, ...): a
// fatbinary container, the CUDA runtime's wrapper of one, PTX text or an ELF cubin; and how
// many bytes a container in memory spans. Header-only and without CUDA, so that the runtime
// (libcucatch, which does not link the fatbinary library) and src/jit tell images apart the
// same way. The container layout is docs/fatbinary.md's.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

namespace cucatch::fatbin {

// The container's magic (its first four bytes; also Fatbinary.h's).
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;
// The CUDA runtime's fatbinary wrapper (__fatBinC_Wrapper_t in the toolkit's
// fatbinary_section.h): magic, version, then a pointer to the container.
inline constexpr uint32_t kWrapperMagic = 0x466243b1;
inline constexpr size_t kWrapperDataOffset = 8;
// A container header: magic (4), version (2), header size (2), size of the entries (8).
inline constexpr size_t kContainerHeaderBytes = 16;

enum class ImageKind { Fatbinary, FatbinaryWrapper, Ptx, Cubin, Unknown };

inline ImageKind classifyImage(std::span<const uint8_t> b) {
  if (b.size() >= 4) {
    uint32_t magic;
    std::memcpy(&magic, b.data(), 4);
    if (magic == kContainerMagic) return ImageKind::Fatbinary;
    if (magic == kWrapperMagic) return ImageKind::FatbinaryWrapper;
    if (std::memcmp(b.data(), "\x7f" "ELF", 4) == 0) return ImageKind::Cubin;
  }
  // PTX: text that reaches a directive (comments and blank lines may come first).
  std::string_view text(reinterpret_cast<const char*>(b.data()), b.size());
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      line.remove_prefix(first);
      if (line.starts_with(".version") || line.starts_with(".target")) return ImageKind::Ptx;
      if (!line.starts_with("//")) return ImageKind::Unknown;
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return ImageKind::Unknown;
}

// The bytes of the container whose header starts at `header` (header and entries), read from
// the header alone; none where it is not a version-1 container header.
inline std::optional<size_t> containerSize(const void* header) {
  const auto* p = static_cast<const uint8_t*>(header);
  uint32_t magic;
  uint16_t version, headerSize;
  uint64_t size;
  std::memcpy(&magic, p, 4);
  std::memcpy(&version, p + 4, 2);
  std::memcpy(&headerSize, p + 6, 2);
  std::memcpy(&size, p + 8, 8);
  if (magic != kContainerMagic || version != 1 || headerSize < kContainerHeaderBytes) return std::nullopt;
  return headerSize + size;
}

// Whether a cubin's section of this type occupies no bytes of the file, and only gives a size:
// SHT_NOBITS, and CUDA's uninitialized device variables (.nv.global, SHT_LOPROC + 7) and shared
// memory (.nv.shared.KERNEL, SHT_LOPROC + 0xa).
inline bool sectionOccupiesNoBytes(uint64_t type) { return type == 8 || type == 0x70000007 || type == 0x7000000a; }

// The bytes an ELF64 image in memory (a cubin) spans, read from its headers: the furthest end of
// its header tables and of the sections and segments that occupy bytes; none where it is not
// ELF64 or its headers are not a cubin's.
inline std::optional<size_t> elfImageSize(const void* image) {
  const auto* p = static_cast<const uint8_t*>(image);
  if (std::memcmp(p, "\x7f" "ELF", 4) != 0 || p[4] != 2) return std::nullopt;  // ELFCLASS64
  auto read = [p](size_t at, size_t bytes) {
    uint64_t v = 0;
    std::memcpy(&v, p + at, bytes);  // little-endian, as every CUDA host is
    return v;
  };
  uint64_t phoff = read(0x20, 8), shoff = read(0x28, 8);
  uint64_t phentsize = read(0x36, 2), phnum = read(0x38, 2), shentsize = read(0x3A, 2), shnum = read(0x3C, 2);
  // Headers of another size, or tables placed beyond any cubin's size: not an image to measure.
  constexpr uint64_t kLimit = uint64_t(1) << 40;
  if ((shnum && shentsize != 64) || (phnum && phentsize != 56) || shoff > kLimit || phoff > kLimit) return std::nullopt;
  uint64_t end = std::max<uint64_t>({64, phoff + phnum * phentsize, shoff + shnum * shentsize});
  for (uint64_t i = 0; i < shnum; ++i) {
    size_t h = shoff + i * shentsize;
    uint64_t type = read(h + 4, 4), offset = read(h + 0x18, 8), size = read(h + 0x20, 8);
    if (sectionOccupiesNoBytes(type)) continue;
    if (offset > kLimit || size > kLimit) return std::nullopt;
    end = std::max(end, offset + size);
  }
  for (uint64_t i = 0; i < phnum; ++i) {
    size_t h = phoff + i * phentsize;
    uint64_t offset = read(h + 8, 8), size = read(h + 0x20, 8);
    if (offset > kLimit || size > kLimit) return std::nullopt;
    end = std::max(end, offset + size);
  }
  return end;
}

// The container a CUDA runtime wrapper points at.
inline const void* wrappedContainer(const void* wrapper) {
  const void* data;
  std::memcpy(&data, static_cast<const uint8_t*>(wrapper) + kWrapperDataOffset, sizeof data);
  return data;
}

}  // namespace cucatch::fatbin
