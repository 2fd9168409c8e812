// The CUDA fatbinary container, read by cucatch's own code (no CUDA library): what nvcc embeds
// in programs and libraries (the ELF section .nv_fatbin; __nv_relfatbin in relocatable device
// code) and what `nvcc -fatbin` / `fatbinary` write to a file. NVIDIA does not document the
// layout; docs/fatbinary.md says what was established here and how (files made by nvcc 13.0 and
// fatbinary, checked against cuobjdump), and tests/unit/test_fatbinary.cpp holds it to that.
//
// A section is a sequence of containers, each a 16-byte header and entries; an entry is a header
// (64 bytes or more) and a payload: a PTX text or an ELF cubin for one architecture, possibly
// compressed (zstd since CUDA 12.8; an older scheme before).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fatbin/Image.h"

namespace cucatch::fatbin {

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };
enum class Compression { None, Zstd, Unsupported };

// Entry flags (the header's 64-bit flags word).
constexpr uint64_t kFlag64Bit = 0x1;
constexpr uint64_t kFlagDebug = 0x2;
constexpr uint64_t kFlagLinux = 0x10;
constexpr uint64_t kFlagCompressedLegacy = 0x2000;  // CUDA 11-12's own compression scheme
constexpr uint64_t kFlagCompressedZstd = 0x8000;
constexpr uint64_t kFlagArchSpecific = 0x100000;  // compute_90a / sm_90a: runs on that architecture only
constexpr uint64_t kFlagArchFamily = 0x200000;    // compute_100f: runs on its family (same major, minor at least)

struct Entry {
  uint16_t kind = 0;  // EntryKind, or another value cucatch does not know
  unsigned arch = 0;  // 90 for sm_90 / compute_90
  // PTX: the PTX ISA version (9.0); ELF: the cubin's code version ([1,8] as cuobjdump prints it).
  unsigned major = 0, minor = 0;
  uint64_t flags = 0;
  Compression compression = Compression::None;
  uint64_t uncompressedSize = 0;     // the payload's size once decompressed
  size_t offset = 0;                 // of the entry header, from the start of the bytes parsed
  std::span<const uint8_t> payload;  // as stored (compressed when `compression` says so)

  bool isPtx() const { return kind == static_cast<uint16_t>(EntryKind::Ptx); }
  bool isElf() const { return kind == static_cast<uint16_t>(EntryKind::Elf); }
  // "sm_90", "sm_90a", "sm_100f" (PTX entries too: the architecture, as cuobjdump names it).
  std::string archName() const;
  // Whether a device of compute capability `deviceArch` (90 for 9.0) can run this PTX, JIT-
  // compiled: a plain architecture runs on it and every later one, "a" on itself only, "f" on
  // its family (the same major version, a minor version at least its own).
  bool ptxRunsOn(unsigned deviceArch) const;
  std::string kindName() const;         // "ptx", "sass", "kind 64"
  std::string compressionName() const;  // "-", "zstd", "legacy"
};

struct Container {
  size_t offset = 0;  // of its header
  size_t size = 0;    // header and entries
  std::vector<Entry> entries;
};

// Malformed input: where, and what is wrong.
class FormatError : public std::runtime_error {
 public:
  FormatError(size_t offset, const std::string& what);
  size_t offset() const { return offset_; }

 private:
  size_t offset_;
};
// A payload compressed with a scheme cucatch cannot read.
class UnsupportedCompression : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every container in `bytes` (a .nv_fatbin or __nv_relfatbin section, or a .fatbin file), in
// order; zero bytes between containers (section padding) are skipped. Throws FormatError.
std::vector<Container> parse(std::span<const uint8_t> bytes);

// The PTX entry of one container that JIT mode compiles for a device of `deviceArch`: of those
// the device can run, the highest architecture, the most specific variant of it ("a", then "f",
// then plain), and the newest PTX ISA; none when the container has no PTX the device runs.
std::optional<size_t> ptxForDevice(const std::vector<Entry>& entries, unsigned deviceArch);

// The entry's payload, decompressed. PTX text comes without the padding NULs the container adds.
// Throws UnsupportedCompression or FormatError (a payload that does not decompress to its size).
std::vector<uint8_t> payload(const Entry& entry);

}  // namespace cucatch::fatbin
