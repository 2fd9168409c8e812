#include "fatbin/Listing.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "fatbin/FatbinFile.h"

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

}  // namespace

std::vector<ListedEntry> listFile(const std::string& path) {
  std::vector<ListedEntry> out;
  FatbinFile file(path);
  for (const auto& region : file.regions()) {
    auto containers = file.containers(region);
    for (size_t c = 0; c < containers.size(); ++c)
      for (size_t i = 0; i < containers[c].entries.size(); ++i) {
        ListedEntry l{path, region.section, c, i, containers[c].entries[i], ""};
        l.status = statusOf(l.entry);
        l.entry.payload = {};  // it points into `file`: the listing keeps only what it prints
        out.push_back(std::move(l));
      }
  }
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
