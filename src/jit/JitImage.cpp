#include "jit/JitImage.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "fatbin/Fatbinary.h"
#include "instrument/Instrument.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::jit {

namespace {

// The CUDA runtime's fatbinary wrapper (__fatBinC_Wrapper_t in the toolkit's fatbinary_section.h).
constexpr uint32_t kWrapperMagic = 0x466243b1;

}  // namespace

ImageKind classifyImage(std::span<const uint8_t> b) {
  if (b.size() >= 4) {
    uint32_t magic;
    std::memcpy(&magic, b.data(), 4);
    if (magic == fatbin::kContainerMagic) return ImageKind::Fatbinary;
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

ChosenPtx choosePtx(std::span<const uint8_t> containerBytes, unsigned deviceArch) {
  std::vector<fatbin::Container> containers = fatbin::parse(containerBytes);
  if (containers.size() != 1)
    throw fatbin::FormatError(0, fmt::format("expected one fatbinary container, found {}", containers.size()));
  const auto& entries = containers[0].entries;
  auto chosen = fatbin::ptxForDevice(entries, deviceArch);
  if (!chosen) {
    std::string have;
    for (const auto& e : entries)
      have += fmt::format("{}{} {}", have.empty() ? "" : ", ", e.isPtx() ? "PTX" : "SASS", e.archName());
    return {std::nullopt, fmt::format("no PTX that sm_{} runs (the image has {})", deviceArch,
                                      have.empty() ? "no entries" : have)};
  }
  const fatbin::Entry& e = entries[*chosen];
  std::string description = fmt::format("compute_{} PTX, ISA {}.{}", e.archName().substr(3), e.major, e.minor);
  try {
    std::vector<uint8_t> bytes = fatbin::payload(e);
    return {std::string(bytes.begin(), bytes.end()), description};
  } catch (const fatbin::UnsupportedCompression& x) {
    return {std::nullopt, fmt::format("its {} cannot be read: {}", description, x.what())};
  }
}

InstrumentedPtx instrumentPtx(const std::string& ptx, const std::string& moduleName,
                              const std::string& rewriterIdentity, const PtxCache* cache) {
  // The ABI version is part of what the runtime checks; the identity covers everything else.
  std::string how = fmt::format("abi {} rewriter {} module {}", abi::kAbiVersion, rewriterIdentity, moduleName);
  std::string key;
  if (cache) {
    key = PtxCache::key(ptx, how);
    if (auto hit = cache->find(key)) return {*hit, true};
  }
  auto parsed = ptx::parseModule(ptx, moduleName);
  if (!parsed.ok()) {
    std::string why;
    for (const auto& d : parsed.errors) why += d.str() + "\n";
    throw std::runtime_error(fmt::format("cannot parse the PTX of {}:\n{}", moduleName, why));
  }
  ptx::Module& module = *parsed.module;
  instrument::instrumentModule(module);  // the defaults cucatch-ptx uses, no register limit
  InstrumentedPtx out{ptx::print(module), false};
  // A full disk does not stop the program: the module is instrumented all the same.
  if (cache) (void)cache->store(key, out.text);
  return out;
}

}  // namespace cucatch::jit
