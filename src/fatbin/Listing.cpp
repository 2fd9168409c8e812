#include "fatbin/Listing.h"
#include "fatbin/RelocatableUnits.h"

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

const std::vector<unsigned>& knownDeviceArchitectures() {
  static const std::vector<unsigned> archs{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  return archs;
}

std::vector<std::string> jitChoices(const std::vector<Entry>& entries) {
  const auto& archs = knownDeviceArchitectures();
  std::vector<std::vector<unsigned>> chosenFor(entries.size());
  for (unsigned device : archs)
    if (auto i = ptxForDevice(entries, device)) chosenFor[*i].push_back(device);
  std::vector<std::string> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& devices = chosenFor[i];
    if (devices.empty()) {
      // SASS is dropped where JIT mode has PTX for its device, and runs as it is where not.
      bool alone = entries[i].isElf() && !ptxForDevice(entries, entries[i].arch);
      out.push_back(alone ? fmt::format("no PTX for {}: runs uninstrumented", entries[i].archName()) : "-");
      continue;
    }
    // Runs of consecutive known architectures, the last open-ended where a plain architecture
    // reaches the newest (later devices run it too).
    std::string text;
    for (size_t a = 0; a < devices.size();) {
      size_t first = std::find(archs.begin(), archs.end(), devices[a]) - archs.begin(), b = a;
      while (b + 1 < devices.size() && devices[b + 1] == archs[first + (b + 1 - a)]) ++b;
      bool open = devices[b] == archs.back() && !(entries[i].flags & (kFlagArchSpecific | kFlagArchFamily));
      if (!text.empty()) text += ", ";
      if (open) text += fmt::format("sm_{} and newer", devices[a]);
      else if (a == b) text += fmt::format("sm_{}", devices[a]);
      else text += fmt::format("sm_{} to sm_{}", devices[a], devices[b]);
      a = b + 1;
    }
    out.push_back("instrumented for " + text);
  }
  return out;
}

std::vector<ListedEntry> listFile(const std::string& path) {
  std::vector<ListedEntry> out;
  FatbinFile file(path);
  size_t unit = 0;  // containers are counted over the file's sections, as cucatch-fatbin jit counts them
  for (const auto& region : file.regions()) {
    auto containers = file.containers(region);
    for (size_t c = 0; c < containers.size(); ++c, ++unit) {
      std::vector<std::string> jit = jitChoices(containers[c].entries);
      // nvlink's image of relocatable device code: JIT mode links its units again instead.
      for (size_t i = 0; i < containers[c].entries.size(); ++i) {
        const Entry& e = containers[c].entries[i];
        if (region.section != ".nv_fatbin" || !jit[i].starts_with("no PTX for")) continue;
        auto found = relocatableUnitsOf(region.bytes.subspan(containers[c].offset, containers[c].size), file, e.arch);
        if (!found.units.empty())
          jit[i] = fmt::format("relinked from {} relocatable units (their PTX instrumented)", found.units.size());
      }
      for (size_t i = 0; i < containers[c].entries.size(); ++i) {
        ListedEntry l{path, region.section, unit, i, containers[c].entries[i], "", jit[i]};
        l.status = statusOf(l.entry);
        l.entry.payload = {};  // it points into `file`: the listing keeps only what it prints
        out.push_back(std::move(l));
      }
    }
  }
  return out;
}

std::string formatListing(const std::vector<ListedEntry>& entries) {
  size_t fileWidth = 4;
  for (const auto& l : entries) fileWidth = std::max(fileWidth, l.file.size());
  size_t statusWidth = 7;
  for (const auto& l : entries) statusWidth = std::max(statusWidth, l.status.size());
  // "unit": the container's number in the file (one per compilation unit; cucatch-fatbin jit
  // --container takes it), counted over the file's sections in order.
  std::string out = fmt::format("{:<{}}  {:<14}  {:>4}  {:>7}  {:<4}  {:>7}  {:<10}  {:>10}  {:<{}}  {}\n", "file",
                                fileWidth, "section", "unit", "arch", "kind", "version", "compressed", "bytes", "cucatch",
                                statusWidth, "under JIT mode");
  for (const auto& l : entries) {
    const Entry& e = l.entry;
    out += fmt::format("{:<{}}  {:<14}  {:>4}  {:>7}  {:<4}  {:>7}  {:<10}  {:>10}  {:<{}}  {}\n", l.file, fileWidth,
                       l.section.empty() ? "-" : l.section, l.container, e.archName(), e.kindName(),
                       fmt::format("{}.{}", e.major, e.minor), e.compressionName(), e.uncompressedSize, l.status,
                       statusWidth, l.jit);
  }
  return out;
}

}  // namespace cucatch::fatbin
