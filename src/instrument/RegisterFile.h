// The register file of an architecture, and what it allows a kernel of so many registers per
// thread: header-only, for the rewriter's register caps (instrument/RegisterLimit.h) and for the
// runtime, which checks kernels the driver links in JIT mode the same way.
#pragma once

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

namespace cucatch::instrument {

// The register file limits of one architecture (CUDA programming guide, "Technical
// Specifications per Compute Capability").
struct RegisterFileLimits {
  unsigned registersPerBlock = 65536;
  unsigned allocationUnit = 256;  // registers are allocated per warp in units of this many
  unsigned maxRegistersPerThread = 255;
  unsigned maxThreadsPerBlock = 1024;
  unsigned warpSize = 32;
};

// For "sm_90", "sm_90a", "sm_100f", "compute_80", ...; nullopt when the name is not one.
inline std::optional<RegisterFileLimits> registerFileLimits(std::string_view arch) {
  for (std::string_view prefix : {"sm_", "compute_"})
    if (arch.substr(0, prefix.size()) == prefix) {
      arch.remove_prefix(prefix.size());
      unsigned number = 0;
      auto [end, ec] = std::from_chars(arch.data(), arch.data() + arch.size(), number);
      if (ec != std::errc() || end == arch.data()) return std::nullopt;
      // Any suffix (sm_90a, sm_100f) keeps the family's limits.
      RegisterFileLimits limits;
      // 5.3 and 6.2 (Tegra X1 and X2) have half the register file per block; every other
      // architecture since 5.0 has 64K registers per block, allocated per warp in units of 256.
      if (number == 53 || number == 62) limits.registersPerBlock = 32768;
      return limits;
    }
  return std::nullopt;
}

// The largest block a kernel using `registers` registers per thread can be launched with.
inline unsigned maxThreadsPerBlock(unsigned registers, const RegisterFileLimits& l) {
  registers = std::max(registers, 1u);
  unsigned perWarp = (registers * l.warpSize + l.allocationUnit - 1) / l.allocationUnit * l.allocationUnit;
  unsigned warps = l.registersPerBlock / perWarp;
  return std::min(l.maxThreadsPerBlock, warps * l.warpSize);
}

// The most registers per thread under which a block of `threads` threads still launches.
inline unsigned registerCapFor(unsigned threads, const RegisterFileLimits& l) {
  unsigned cap = 1;
  for (unsigned r = 1; r <= l.maxRegistersPerThread; ++r)
    if (maxThreadsPerBlock(r, l) >= threads) cap = r;
  return cap;
}

}  // namespace cucatch::instrument
