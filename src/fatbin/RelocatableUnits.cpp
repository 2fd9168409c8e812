#include "fatbin/RelocatableUnits.h"

#include <elf.h>

#include <regex>

#include <fmt/format.h>

#include "fatbin/ElfFile.h"

namespace cucatch::fatbin {

namespace {

// The entry of `container` with SASS for exactly `deviceArch`, decompressed; empty where none.
std::vector<uint8_t> sassFor(const Container& container, unsigned deviceArch) {
  for (const auto& e : container.entries)
    if (e.isElf() && e.arch == deviceArch && !(e.flags & (kFlagArchSpecific | kFlagArchFamily))) return payload(e);
  return {};
}

}  // namespace

std::set<std::string> cubinFunctions(std::span<const uint8_t> cubin, const std::string& name) {
  ElfFile elf(cubin, name);
  std::set<std::string> functions;
  for (const auto& s : elf.sections())
    if (s.type == SHT_PROGBITS && s.name.starts_with(".text.")) functions.insert(s.name.substr(6));
  return functions;
}

std::set<std::string> ptxFunctions(std::string_view ptx) {
  // A definition: ".entry NAME" or ".func (RETURNS) NAME" at a line's start, after linkage
  // directives other than .extern.
  static const std::regex definition(
      R"(^[ \t]*(?:\.(?:visible|weak|common)[ \t]+)*\.(?:entry|func)[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_$%][A-Za-z0-9_$]*))",
      std::regex::multiline);
  std::set<std::string> functions;
  std::string text(ptx);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), definition); it != std::sregex_iterator(); ++it)
    functions.insert((*it)[1].str());
  return functions;
}

RelocatableUnits relocatableUnitsOf(std::span<const uint8_t> image, const FatbinFile& object, unsigned deviceArch) {
  RelocatableUnits out;
  std::vector<Container> imageContainers = parse(image);
  // nvcc's placeholder where the device link was left to the driver (-rdc with PTX only): a
  // container with no entries, linked at load time from every relocatable unit.
  bool placeholder = imageContainers.size() == 1 && imageContainers[0].entries.empty();
  std::vector<uint8_t> linked = imageContainers.size() == 1 ? sassFor(imageContainers[0], deviceArch)
                                                            : std::vector<uint8_t>{};
  if (linked.empty() && !placeholder) {
    out.why = fmt::format("the image has no SASS for sm_{} to compare with", deviceArch);
    return out;
  }
  std::set<std::string> imageFunctions;
  if (!placeholder) imageFunctions = cubinFunctions(linked, "the image's cubin");
  // The compiler's own helpers (IEEE division and square root slow paths: __cuda_sm3x_div_rn_
  // noftz_f32_slowpath, __cuda_sm20_sqrt_rn_f32_slowpath, ...), which the linker adds from its
  // library, in nvlink's link as in the driver's: no unit defines them.
  std::erase_if(imageFunctions, [](const std::string& f) { return f.starts_with("__cuda_sm"); });
  std::set<std::string> unitFunctions;
  bool anyPtx = false;
  for (const auto& region : object.regions()) {
    if (region.section != "__nv_relfatbin") continue;
    for (const auto& c : object.containers(region)) {
      RelocatableUnit unit{fmt::format("unit {} of {}", ++out.count, object.path()), std::nullopt,
                           region.bytes.subspan(c.offset, c.size)};
      std::set<std::string> defined;
      if (auto chosen = ptxForDevice(c.entries, deviceArch)) {
        std::vector<uint8_t> ptx = payload(c.entries[*chosen]);
        unit.ptx = std::string(ptx.begin(), ptx.end());
        defined = ptxFunctions(*unit.ptx);
        anyPtx = true;
      } else if (std::vector<uint8_t> sass = sassFor(c, deviceArch); !sass.empty()) {
        defined = cubinFunctions(sass, unit.name);
      } else if (out.why.empty()) {
        out.why = fmt::format("its {} has neither PTX nor SASS for sm_{}", unit.name, deviceArch);
      }
      unitFunctions.insert(defined.begin(), defined.end());
      out.units.push_back(std::move(unit));
    }
  }
  if (out.count == 0) out.why = fmt::format("{} holds no relocatable device code (__nv_relfatbin)", object.path());
  else if (!anyPtx && out.why.empty())
    out.why = fmt::format("none of the {} relocatable units of {} has PTX that sm_{} runs", out.count, object.path(),
                          deviceArch);
  else if (imageFunctions.empty() && !placeholder && out.why.empty())
    out.why = "it defines no functions";  // the CUDA runtime's own image has none
  for (const auto& f : imageFunctions)
    if (out.why.empty() && !unitFunctions.contains(f))
      out.why = fmt::format("it defines {}, which no relocatable unit of {} does: it is not their link", f,
                            object.path());
  if (!out.why.empty()) out.units.clear();
  return out;
}

}  // namespace cucatch::fatbin
