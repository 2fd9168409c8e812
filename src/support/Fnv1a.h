// FNV-1a, 64 bits: a fast hash of bytes for naming and keying, where the bytes themselves are
// compared or a second hash backs it (JIT mode's replacement cache, cucatch-nvcc's reused
// objects). Header-only: the runtime and the tools share it without linking each other.
#pragma once

#include <cstdint>
#include <string_view>

namespace cucatch::support {

inline uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace cucatch::support
