#include "fatbin/CubinAttributes.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace cucatch::fatbin {

namespace {

// Each attribute starts with a format byte and an attribute byte. The next two bytes are the
// value itself, except for the "sized" format, where they give the length of the value that
// follows (ptxas 13.0 writes REGCOUNT as sized: symbol index, then count, 32 bits each).
constexpr uint8_t kFormatSized = 0x04;
constexpr uint8_t kAttributeRegisterCount = 0x2f;

}  // namespace

std::map<std::string, unsigned> functionRegisterCounts(const ElfFile& cubin) {
  std::vector<std::string> symbols = cubin.symbolNames();
  std::map<std::string, unsigned> out;
  for (const auto& section : cubin.sections()) {
    if (section.name != ".nv.info" && !section.name.starts_with(".nv.info.")) continue;
    std::span<const uint8_t> b = section.bytes;
    for (size_t at = 0; at + 4 <= b.size();) {
      uint8_t format = b[at], attribute = b[at + 1];
      uint16_t half;
      std::memcpy(&half, b.data() + at + 2, 2);
      at += 4;
      // Formats 1-3 carry their value in those two bytes; another one would be read wrongly.
      if (format < 1 || format > kFormatSized)
        throw std::runtime_error(fmt::format("{}: attribute format {} at offset {} of {} is not known", cubin.path(),
                                             format, at - 4, section.name));
      if (format != kFormatSized) continue;
      if (half > b.size() - at)
        throw std::runtime_error(fmt::format("{}: an attribute overruns section {}", cubin.path(), section.name));
      if (attribute == kAttributeRegisterCount && half == 8) {
        uint32_t symbol, registers;
        std::memcpy(&symbol, b.data() + at, 4);
        std::memcpy(&registers, b.data() + at + 4, 4);
        if (symbol >= symbols.size() || symbols[symbol].empty())
          throw std::runtime_error(
              fmt::format("{}: a register count in {} names symbol {}, which has no name", cubin.path(), section.name, symbol));
        out[symbols[symbol]] = registers;
      }
      at += half;
    }
  }
  return out;
}

}  // namespace cucatch::fatbin
