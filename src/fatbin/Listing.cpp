#include "fatbin/Listing.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

#include <fmt/format.h>

#include "fatbin/ElfFile.h"

namespace cucatch::fatbin {

namespace {

constexpr std::string_view kStateSymbol = "__cucatch_state";

std::string statusOf(const Entry& e) {
  try {
    std::vector<uint8_t> bytes = payload(e);
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return text.find(kStateSymbol) != std::string_view::npos ? "instrumented" : "not instrumented";
  } catch (const UnsupportedCompression&) {
    return "unknown (compressed with the older scheme)";
  }
}

void addEntries(std::vector<ListedEntry>& out, const std::string& file, const std::string& section,
                std::span<const uint8_t> bytes) {
  auto containers = parse(bytes);
  for (size_t c = 0; c < containers.size(); ++c)
    for (size_t i = 0; i < containers[c].entries.size(); ++i) {
      ListedEntry l{file, section, c, i, containers[c].entries[i], ""};
      l.status = statusOf(l.entry);
      out.push_back(std::move(l));
    }
}

}  // namespace

std::vector<ListedEntry> listFile(const std::string& path) {
  std::vector<ListedEntry> out;
  // A raw fatbinary file starts with the container magic.
  {
    std::ifstream in(path, std::ios::binary);
    uint32_t magic = 0;
    if (!in || !in.read(reinterpret_cast<char*>(&magic), sizeof magic))
      throw std::runtime_error(fmt::format("{}: cannot read", path));
    if (magic == kContainerMagic) {
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in.seekg(0))), std::istreambuf_iterator<char>());
      try {
        addEntries(out, path, "", bytes);
      } catch (const FormatError& e) {
        throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
      }
      // The spans point into `bytes`: keep what the listing needs, drop the payloads.
      for (auto& l : out) l.entry.payload = {};
      return out;
    }
  }
  ElfFile elf(path);
  for (const auto& s : elf.fatbinSections()) {
    try {
      addEntries(out, path, s.name, s.bytes);
    } catch (const FormatError& e) {
      throw std::runtime_error(fmt::format("{}: section {}: {}", path, s.name, e.what()));
    }
  }
  for (auto& l : out) l.entry.payload = {};  // they pointed into the mapping
  return out;
}

std::string formatListing(const std::vector<ListedEntry>& entries) {
  size_t fileWidth = 4;
  for (const auto& l : entries) fileWidth = std::max(fileWidth, l.file.size());
  std::string out = fmt::format("{:<{}}  {:<14}  {:>6}  {:<4}  {:>7}  {:<10}  {:>10}  {}\n", "file", fileWidth, "section",
                                "arch", "kind", "version", "compressed", "bytes", "cucatch");
  for (const auto& l : entries) {
    const Entry& e = l.entry;
    out += fmt::format("{:<{}}  {:<14}  {:>6}  {:<4}  {:>7}  {:<10}  {:>10}  {}\n", l.file, fileWidth,
                       l.section.empty() ? "-" : l.section, fmt::format("sm_{}", e.arch), e.kindName(),
                       fmt::format("{}.{}", e.major, e.minor), e.compressionName(), e.uncompressedSize, l.status);
  }
  return out;
}

}  // namespace cucatch::fatbin
