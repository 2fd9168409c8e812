// The arguments of a kernel's launch twin (instrument/LaunchMetadata.h): the kernel's own, then,
// for each pointer parameter the twin takes bounds for, the base, size and metadata word that
// READMETADATA would read for it on the device (cucatch_abi.h). The runtime builds them from its
// host mirror of the tables (Metadata::deviceView), which holds what a launch ordered after the
// host's calls so far reads. No CUDA here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "runtime/Metadata.h"

namespace cucatch::runtime {

struct LaunchBounds {
  uint64_t base = 0, size = 0;
  uint32_t word = 0;
};

// The twin's kernelParams for a launch of its kernel with `params` (`paramCount` of them), the
// pointers at `positions` looked up with `view`, into `bounds` and `out` (which point into
// `bounds`); false where the host cannot give some pointer's bounds: a device-heap tag, whose
// entry only the device keeps, or one `view` has none for (Metadata::launchView: a graph's
// allocation). The kernel itself runs then.
bool launchTwinArguments(void* const* params, uint32_t paramCount, const std::vector<uint32_t>& positions,
                         const std::function<std::optional<Metadata::DeviceView>(uint64_t)>& view,
                         std::vector<LaunchBounds>& bounds, std::vector<void*>& out);

}  // namespace cucatch::runtime
