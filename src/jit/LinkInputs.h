// What the driver must link in place of an image that cannot be instrumented as it is: nvlink's
// output for relocatable device code (nvcc -rdc, CMake's CUDA_SEPARABLE_COMPILATION), which holds
// SASS only. The compilation units it was linked from keep their PTX in the program's
// __nv_relfatbin section (fatbin/RelocatableUnits.h finds them), so JIT mode links them again with
// the driver (cuLink*): each unit's PTX instrumented, and a unit with no PTX the device runs
// (libcudadevrt's) as it is.
//
// JIT mode's helper (cucatch-fatbin jit) writes the inputs to one file, and the runtime reads
// them back: header-only and without CUDA, for both. The file is a sequence of records, each a
// line "cucatch-link-input KIND SIZE NAME" (KIND: ptx or fatbinary) and SIZE bytes.
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cucatch::jit {

struct LinkInput {
  enum class Kind { Ptx, Fatbinary };
  Kind kind = Kind::Ptx;
  std::string bytes;
  std::string name;  // for the driver's messages: "unit 2 of ./app"
};

inline std::string packLinkInputs(const std::vector<LinkInput>& inputs) {
  std::string out;
  for (const LinkInput& in : inputs) {
    out += "cucatch-link-input ";
    out += in.kind == LinkInput::Kind::Ptx ? "ptx " : "fatbinary ";
    out += std::to_string(in.bytes.size()) + " " + in.name + "\n";
    out += in.bytes;
  }
  return out;
}

// None where `packed` is not what packLinkInputs writes.
inline std::optional<std::vector<LinkInput>> unpackLinkInputs(std::string_view packed) {
  std::vector<LinkInput> inputs;
  constexpr std::string_view kTag = "cucatch-link-input ";
  while (!packed.empty()) {
    size_t end = packed.find('\n');
    if (!packed.starts_with(kTag) || end == std::string_view::npos) return std::nullopt;
    std::string_view line = packed.substr(kTag.size(), end - kTag.size());
    packed.remove_prefix(end + 1);
    LinkInput in;
    size_t space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    std::string_view kind = line.substr(0, space);
    if (kind == "ptx") in.kind = LinkInput::Kind::Ptx;
    else if (kind == "fatbinary") in.kind = LinkInput::Kind::Fatbinary;
    else return std::nullopt;
    line.remove_prefix(space + 1);
    size_t size = 0;
    auto [rest, error] = std::from_chars(line.data(), line.data() + line.size(), size);
    if (error != std::errc() || rest == line.data() + line.size() || *rest != ' ' || size > packed.size())
      return std::nullopt;
    in.name = std::string(rest + 1, line.data() + line.size());
    in.bytes = std::string(packed.substr(0, size));
    packed.remove_prefix(size);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

}  // namespace cucatch::jit
