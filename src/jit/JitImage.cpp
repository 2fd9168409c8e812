#include "jit/JitImage.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "fatbin/Fatbinary.h"
#include "instrument/Instrument.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "runtime/cucatch_abi.h"
#include "toolchain/RegisterLimits.h"

namespace cucatch::jit {

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
                              const std::string& rewriterIdentity, const PtxCache* cache, const RegisterCaps* caps,
                              const Switches& switches) {
  // The ABI version is part of what the runtime checks; the identity covers everything else.
  std::string how = fmt::format("abi {} rewriter {} module {}", abi::kAbiVersion, rewriterIdentity, moduleName);
  if (caps)
    how += fmt::format(" caps {} ptxas {}{}", caps->arch, PtxCache::buildIdentity(caps->ptxas),
                       caps->relocatable ? " relocatable" : "");
  if (!switches.key.empty()) how += " switches " + switches.key;
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
  instrument::InstrumentOptions options = switches.options;
  if (caps && caps->relocatable)
    options.relocatableFrames =
        toolchain::ptxasRegisterLimits(caps->ptxas, caps->arch, {"--compile-only"}, ptx, moduleName);
  else if (caps)
    options.registerLimit = toolchain::ptxasRegisterLimits(caps->ptxas, caps->arch, {}, ptx, moduleName);
  instrument::instrumentModule(module, options);
  InstrumentedPtx out{ptx::print(module), false};
  // A full disk does not stop the program: the module is instrumented all the same.
  if (cache) (void)cache->store(key, out.text);
  return out;
}

}  // namespace cucatch::jit
