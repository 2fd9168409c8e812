// Relocatable device code (nvcc -rdc, CMake's CUDA_SEPARABLE_COMPILATION): the image such a
// program or library registers is nvlink's output, SASS only; the compilation units it was
// linked from keep their PTX in the file's __nv_relfatbin section. Which units an image was
// linked from, and what of each a device links (JIT mode links them again, their PTX
// instrumented: jit/LinkInputs.h). No CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fatbin/FatbinFile.h"

namespace cucatch::fatbin {

// The functions (kernels and device functions) a cubin defines: its .text.NAME sections.
// Throws std::runtime_error naming `name` where the ELF image is malformed.
std::set<std::string> cubinFunctions(std::span<const uint8_t> cubin, const std::string& name);

// The functions a PTX module defines (.entry and .func, not .extern declarations).
std::set<std::string> ptxFunctions(std::string_view ptx);

struct RelocatableUnit {
  std::string name;                   // "unit 2 of ./app"
  std::optional<std::string> ptx;     // the PTX a device runs, decompressed
  std::span<const uint8_t> container;  // the unit, as the file holds it (valid while the file is)
};
struct RelocatableUnits {
  std::vector<RelocatableUnit> units;  // empty where `image` is not their link (`why`)
  std::string why;
  size_t count = 0;  // relocatable units the file holds
};
// The units of `object` (its __nv_relfatbin containers) that `image` (one container: SASS for a
// device of `deviceArch`, or nvcc's empty placeholder where the driver links them at load time,
// -rdc with PTX only) was linked from: each with the PTX the device runs, or the unit alone
// where it has none (libcudadevrt's). None, with why, where `object` has no relocatable units,
// none has PTX the device runs, a unit has neither PTX nor SASS for it, or `image` defines no
// function or one no unit defines (another image of the file, such as the CUDA runtime's own).
RelocatableUnits relocatableUnitsOf(std::span<const uint8_t> image, const FatbinFile& object, unsigned deviceArch);

}  // namespace cucatch::fatbin
