#include "runtime/LaunchMetadata.h"

#include <cstring>

namespace cucatch::runtime {

bool launchTwinArguments(void* const* params, uint32_t paramCount, const std::vector<uint32_t>& positions,
                         const std::function<std::optional<Metadata::DeviceView>(uint64_t)>& view,
                         std::vector<LaunchBounds>& bounds, std::vector<void*>& out) {
  bounds.clear();
  bounds.reserve(positions.size());  // (out points into it)
  for (uint32_t position : positions) {
    if (position >= paramCount) return false;
    uint64_t pointer = 0;
    std::memcpy(&pointer, params[position], sizeof pointer);
    if (isDeviceHeapTag(tagOf(pointer))) return false;
    const std::optional<Metadata::DeviceView> v = view(pointer);
    if (!v) return false;
    bounds.push_back({v->entry.base, v->entry.size,
                      v->verdict | uint32_t(v->entry.tag) << abi::kMetaTagShift |
                          uint32_t(v->entry.state) << abi::kMetaStateShift});
  }
  out.assign(params, params + paramCount);
  for (auto& b : bounds) {
    out.push_back(&b.base);
    out.push_back(&b.size);
    out.push_back(&b.word);
  }
  return true;
}

}  // namespace cucatch::runtime
