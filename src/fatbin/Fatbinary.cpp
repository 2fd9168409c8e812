#include "fatbin/Fatbinary.h"

#include <zstd.h>

#include <cstring>

#include <tuple>

#include <fmt/format.h>

namespace cucatch::fatbin {

namespace {

// No entry of device code decompresses to more (one module's PTX or cubin; the largest seen,
// libraries' fatbinaries, hold entries of tens of MiB).
constexpr uint64_t kMostUncompressedBytes = uint64_t(4) << 30;

// Little-endian reads at `offset` of `bytes`, bounds-checked by the caller.
template <class T>
T read(std::span<const uint8_t> bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// The container header (16 bytes): magic, version, header size, size of what follows.
// The entry header: its fixed part (larger headers carry more after it).
constexpr size_t kEntryHeaderBytes = 64;
struct EntryLayout {
  static constexpr size_t kind = 0;              // u16
  static constexpr size_t headerSize = 4;        // u32: this header's size
  static constexpr size_t payloadSize = 8;       // u64: the payload as stored, padded to 8
  static constexpr size_t compressedSize = 16;   // u32: the compressed payload, unpadded (0: not compressed)
  static constexpr size_t minor = 24;            // u16
  static constexpr size_t major = 26;            // u16
  static constexpr size_t arch = 28;             // u32
  static constexpr size_t flags = 40;            // u64
  static constexpr size_t uncompressedSize = 56;  // u64 (0 when not compressed)
};

}  // namespace

FormatError::FormatError(size_t offset, const std::string& what)
    : std::runtime_error(fmt::format("fatbinary at byte {}: {}", offset, what)), offset_(offset) {}

std::string Entry::kindName() const {
  if (isPtx()) return "ptx";
  if (isElf()) return "sass";
  return fmt::format("kind {}", kind);
}

std::string Entry::archName() const {
  return fmt::format("sm_{}{}", arch, flags & kFlagArchSpecific ? "a" : flags & kFlagArchFamily ? "f" : "");
}

bool Entry::ptxRunsOn(unsigned deviceArch) const {
  if (!isPtx()) return false;
  if (flags & kFlagArchSpecific) return deviceArch == arch;
  if (flags & kFlagArchFamily) return deviceArch / 10 == arch / 10 && deviceArch >= arch;
  return deviceArch >= arch;
}

std::optional<size_t> ptxForDevice(const std::vector<Entry>& entries, unsigned deviceArch) {
  auto rank = [](const Entry& e) {
    int specificity = e.flags & kFlagArchSpecific ? 2 : e.flags & kFlagArchFamily ? 1 : 0;
    return std::tuple(e.arch, specificity, e.major, e.minor);
  };
  std::optional<size_t> best;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].ptxRunsOn(deviceArch) && (!best || rank(entries[i]) > rank(entries[*best]))) best = i;
  return best;
}

std::string Entry::compressionName() const {
  switch (compression) {
    case Compression::None: return "-";
    case Compression::Zstd: return "zstd";
    case Compression::Unsupported: return "legacy";
  }
  return "?";
}

std::vector<Container> parse(std::span<const uint8_t> bytes) {
  std::vector<Container> out;
  size_t at = 0;
  while (at < bytes.size()) {
    // Sections align containers: skip the padding between them.
    if (bytes[at] == 0) {
      ++at;
      continue;
    }
    if (bytes.size() - at < kContainerHeaderBytes) throw FormatError(at, "a truncated container header");
    if (read<uint32_t>(bytes, at) != kContainerMagic)
      throw FormatError(at, fmt::format("not a fatbinary container (magic {:#010x}, expected {:#010x})",
                                        read<uint32_t>(bytes, at), kContainerMagic));
    uint16_t version = read<uint16_t>(bytes, at + 4);
    uint16_t headerSize = read<uint16_t>(bytes, at + 6);
    uint64_t size = read<uint64_t>(bytes, at + 8);
    if (version != 1) throw FormatError(at, fmt::format("container version {} (cucatch reads version 1)", version));
    if (headerSize < kContainerHeaderBytes || headerSize > bytes.size() - at || size > bytes.size() - at - headerSize)
      throw FormatError(at, fmt::format("a container of {} bytes after a {}-byte header overruns the {} bytes given",
                                        size, headerSize, bytes.size() - at));
    Container c;
    c.offset = at;
    c.size = headerSize + size;
    size_t p = at + headerSize, end = at + headerSize + size;
    while (p < end) {
      if (end - p < kEntryHeaderBytes) throw FormatError(p, "a truncated entry header");
      Entry e;
      e.offset = p;
      e.kind = read<uint16_t>(bytes, p + EntryLayout::kind);
      uint32_t entryHeader = read<uint32_t>(bytes, p + EntryLayout::headerSize);
      uint64_t stored = read<uint64_t>(bytes, p + EntryLayout::payloadSize);
      uint32_t compressed = read<uint32_t>(bytes, p + EntryLayout::compressedSize);
      e.minor = read<uint16_t>(bytes, p + EntryLayout::minor);
      e.major = read<uint16_t>(bytes, p + EntryLayout::major);
      e.arch = read<uint32_t>(bytes, p + EntryLayout::arch);
      e.flags = read<uint64_t>(bytes, p + EntryLayout::flags);
      if (entryHeader < kEntryHeaderBytes || entryHeader > end - p || stored > end - p - entryHeader)
        throw FormatError(p, fmt::format("an entry of {} bytes after a {}-byte header overruns its container",
                                         stored, entryHeader));
      if (e.flags & kFlagCompressedZstd) {
        e.compression = Compression::Zstd;
      } else if (e.flags & kFlagCompressedLegacy) {
        e.compression = Compression::Unsupported;
      }
      size_t length = stored;
      if (e.compression != Compression::None) {
        if (compressed > stored) throw FormatError(p, "a compressed size larger than the payload");
        length = compressed;
        e.uncompressedSize = read<uint64_t>(bytes, p + EntryLayout::uncompressedSize);
      } else {
        e.uncompressedSize = stored;
      }
      e.payload = bytes.subspan(p + entryHeader, length);
      c.entries.push_back(e);
      p += entryHeader + stored;
    }
    out.push_back(std::move(c));
    at = end;
  }
  return out;
}

std::vector<uint8_t> payload(const Entry& e) {
  std::vector<uint8_t> out;
  switch (e.compression) {
    case Compression::None:
      out.assign(e.payload.begin(), e.payload.end());
      break;
    case Compression::Zstd: {
      // The size the entry gives must be the frame's own, and a size device code has: a damaged
      // header would otherwise have this allocate (and clear) whatever it says.
      unsigned long long frame = ZSTD_getFrameContentSize(e.payload.data(), e.payload.size());
      if (frame != e.uncompressedSize || e.uncompressedSize > kMostUncompressedBytes)
        throw FormatError(e.offset, fmt::format("a zstd payload of {} bytes by its entry header and {} by its frame",
                                                e.uncompressedSize,
                                                frame == ZSTD_CONTENTSIZE_UNKNOWN ? std::string("none given")
                                                : frame == ZSTD_CONTENTSIZE_ERROR ? std::string("no frame")
                                                                                  : std::to_string(frame)));
      out.resize(e.uncompressedSize);
      size_t n = ZSTD_decompress(out.data(), out.size(), e.payload.data(), e.payload.size());
      if (ZSTD_isError(n) || n != e.uncompressedSize)
        throw FormatError(e.offset, fmt::format("a zstd payload that does not decompress to its {} bytes ({})",
                                                e.uncompressedSize, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short"));
      break;
    }
    case Compression::Unsupported:
      throw UnsupportedCompression(fmt::format(
          "the {} entry for sm_{} at byte {} is compressed with the fatbinary's older scheme (flag {:#x}), which "
          "cucatch cannot read",
          e.kindName(), e.arch, e.offset, kFlagCompressedLegacy));
  }
  // PTX is text: the container pads it with NULs.
  if (e.isPtx())
    while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

}  // namespace cucatch::fatbin
