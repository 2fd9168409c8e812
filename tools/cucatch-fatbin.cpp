// cucatch-fatbin: the device code in executables, shared libraries, objects and .fatbin files,
// read by cucatch's own fatbinary reader (src/fatbin).
//
//   cucatch-fatbin list FILE...                  one line per entry (docs/fatbinary.md)
//   cucatch-fatbin extract FILE -o DIR            every entry, decompressed, as
//                                                 DIR/<n>.sm_<arch>.{ptx,cubin}
//   cucatch-fatbin jit FILE --arch sm_90 -o OUT.ptx
//                                                 what JIT mode hands the driver for one container
//                                                 of FILE on that device (FILE: a program, library
//                                                 or fatbinary; or PTX text, instrumented as it
//                                                 is): the PTX it runs, instrumented (--container N,
//                                                 --cache DIR or auto, --name for the reports,
//                                                 and cucatch-ptx's switches, such as --shared-parts).
//                                                 The runtime runs this for each module it loads.
//
// Exit status: 0; 2 when a file cannot be read or is malformed (file: what is wrong); for jit,
// also those of jit::HelperExit (jit/JitImage.h): 3 when no PTX there runs on the device, 4 when
// the PTX is instrumented already (nothing written then), 5 when it was instrumented without the
// register caps --ptxas asked for (why on stderr), 6 when what it wrote is the units to link in
// the image's place (--relocatable-from).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include "CheckFlags.h"
#include "fatbin/FatbinFile.h"
#include "fatbin/Listing.h"
#include "fatbin/RelocatableUnits.h"
#include "jit/JitImage.h"
#include "jit/LinkInputs.h"
#include "toolchain/Ptxas.h"

namespace fs = std::filesystem;
using namespace cucatch::fatbin;

namespace {

// Every entry of `path` with its payload, for extraction.
int extract(const std::string& path, const std::string& dir) {
  FatbinFile file(path);
  fs::create_directories(dir);
  size_t n = 0;
  for (const auto& region : file.regions())
    for (const auto& c : file.containers(region))
      for (const auto& e : c.entries) {
        ++n;
        std::string name = fmt::format("{}/{}.sm_{}.{}", dir, n, e.arch, e.isPtx() ? "ptx" : e.isElf() ? "cubin" : "bin");
        try {
          auto bytes = payload(e);
          std::ofstream(name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
          fmt::print("{}\n", name);
        } catch (const UnsupportedCompression& x) {
          fmt::print(stderr, "cucatch-fatbin: {}: {}: not extracted\n", path, x.what());
        }
      }
  return 0;
}

using cucatch::jit::kHelperInstrumentedAlready, cucatch::jit::kHelperLinkInputs, cucatch::jit::kHelperNoPtx,
    cucatch::jit::kHelperWithoutCaps;

// The PTX of one container of the fatbinaries in `path` that a device of `arch` runs: the one
// `index` names, else the only one there is (0, or the exit status to end with). Messages name
// the module `moduleName` where it is given (the runtime's input is a temporary file).
int chooseFromFatbinary(const std::string& path, unsigned arch, std::optional<size_t> index,
                        std::optional<cucatch::jit::ChosenPtx>& chosen, std::string& moduleName, std::string& noPtx) {
  const std::string shown = moduleName.empty() ? path : moduleName;
  FatbinFile file(path);
  std::vector<std::span<const uint8_t>> containers;
  for (const auto& region : file.regions())
    for (const auto& c : file.containers(region)) containers.push_back(region.bytes.subspan(c.offset, c.size));
  if (containers.empty()) {
    fmt::print(stderr, "cucatch-fatbin: error: {}: no fatbinary\n", path);
    return 2;
  }
  if (!index && containers.size() > 1) {
    // The one container with PTX this device runs (a program also holds the CUDA runtime's own
    // SASS-only container).
    std::vector<size_t> withPtx;
    std::string why;
    for (size_t c = 0; c < containers.size(); ++c) {
      auto candidate = cucatch::jit::choosePtx(containers[c], arch);
      if (!candidate.text) {
        why += fmt::format("\n  container {}: {}", c, candidate.description);
        continue;
      }
      withPtx.push_back(c);
      chosen = std::move(candidate);
    }
    if (withPtx.empty()) {
      noPtx = fmt::format("{}: not instrumented on sm_{}:{}", shown, arch, why);
      return kHelperNoPtx;
    }
    if (withPtx.size() > 1) {
      fmt::print(stderr, "cucatch-fatbin: error: {} has {} fatbinary containers (one per compilation unit, in the "
                         "order of its sections), {} with PTX that sm_{} runs: choose one with --container 0..{}\n",
                 path, containers.size(), withPtx.size(), arch, containers.size() - 1);
      return 2;
    }
    index = withPtx[0];
  }
  size_t n = index.value_or(0);
  if (n >= containers.size()) {
    fmt::print(stderr, "cucatch-fatbin: error: {} has {} fatbinary containers; --container {} is not one\n", path,
               containers.size(), n);
    return 2;
  }
  if (!chosen) chosen = cucatch::jit::choosePtx(containers[n], arch);
  if (!chosen->text) {
    noPtx = moduleName.empty()
                ? fmt::format("{} container {}: not instrumented on sm_{}: {}", path, n, arch, chosen->description)
                : fmt::format("{}: not instrumented on sm_{}: {}", moduleName, arch, chosen->description);
    return kHelperNoPtx;
  }
  if (moduleName.empty()) moduleName = fmt::format("{} (container {})", path, n);
  return 0;
}

// The relocatable units of `object` that the image in `path` (one container) was linked from,
// their PTX instrumented, written to `output` for the driver to link (jit/LinkInputs.h); exit
// status 6, or 3 where the image is not such a link (`noPtx`: why the image itself cannot be).
int linkInputs(const std::string& path, const std::string& object, unsigned arch, const std::string& output,
               const std::string& moduleName, const std::string& noPtx, const cucatch::jit::PtxCache* cache,
               const cucatch::jit::Switches& switches) {
  FatbinFile image(path), relocatable(object);
  if (image.regions().size() != 1) throw std::runtime_error(fmt::format("{}: not one fatbinary", path));
  auto found = relocatableUnitsOf(image.regions()[0].bytes, relocatable, arch);
  if (found.units.empty()) {
    if (found.count == 0) fmt::print(stderr, "cucatch-fatbin: {}\n", noPtx);
    else fmt::print(stderr, "cucatch-fatbin: {} (and not relinked from its relocatable units: {})\n", noPtx, found.why);
    return kHelperNoPtx;
  }
  // A cucatch-nvcc -rdc build's units hold instrumented PTX: its image is instrumented already.
  for (const auto& unit : found.units)
    if (unit.ptx && cucatch::jit::isInstrumented(*unit.ptx)) {
      fmt::print(stderr, "cucatch-fatbin: {}: relocatable device code instrumented already ({})\n", moduleName,
                 unit.name);
      return kHelperInstrumentedAlready;
    }
  std::string identity = cucatch::jit::PtxCache::buildIdentity("/proc/self/exe");
  std::optional<cucatch::jit::RegisterCaps> frames;
  if (std::string ptxas = cucatch::toolchain::findPtxas(); !ptxas.empty())
    frames = cucatch::jit::RegisterCaps{ptxas, fmt::format("sm_{}", arch), true};
  std::vector<cucatch::jit::LinkInput> inputs;
  size_t instrumented = 0;
  for (const auto& unit : found.units) {
    if (!unit.ptx) {
      inputs.push_back({cucatch::jit::LinkInput::Kind::Fatbinary, std::string(unit.container.begin(), unit.container.end()),
                        unit.name});
      continue;
    }
    // Relocatable code: no register caps here; the runtime checks the linked kernels against
    // the image's (JitLoader.h). Its frames are measured, for the stack its kernels need under
    // recursion (instrument/StackReserve.h), where a ptxas is found.
    inputs.push_back({cucatch::jit::LinkInput::Kind::Ptx,
                      cucatch::jit::instrumentPtx(*unit.ptx, unit.name, identity, cache, frames ? &*frames : nullptr,
                                                  switches)
                          .text,
                      unit.name});
    ++instrumented;
  }
  size_t asTheyAre = inputs.size() - instrumented;
  std::ofstream out(output, std::ios::binary);
  out << cucatch::jit::packLinkInputs(inputs);
  if (!out) {
    fmt::print(stderr, "cucatch-fatbin: error: cannot write {}\n", output);
    return 2;
  }
  fmt::print(stderr, "cucatch-fatbin: {}: relocatable device code: {} units to link again for sm_{}, {} of them "
                     "instrumented{}\n",
             moduleName, inputs.size(), arch, instrumented,
             asTheyAre ? fmt::format(" ({} without PTX for the device, linked as they are)", asTheyAre) : "");
  return kHelperLinkInputs;
}

// The instrumented PTX JIT mode would load for container `index` of `path` on a device of `arch`
// (or for `path` itself, when it is PTX text).
int jit(const std::string& path, const std::string& archName, std::optional<size_t> index, const std::string& output,
        const std::string& cacheDir, const std::string& name, const std::string& ptxasChoice,
        const cucatch::tools::CheckFlags& flags, const std::string& relocatableFrom, bool wholeProgram) {
  unsigned arch = 0;
  if (archName.rfind("sm_", 0) != 0 || (arch = static_cast<unsigned>(std::atoi(archName.c_str() + 3))) == 0) {
    fmt::print(stderr, "cucatch-fatbin: error: --arch {}: expected a device architecture such as sm_90\n", archName);
    return 2;
  }
  std::optional<cucatch::jit::ChosenPtx> chosen;
  std::string moduleName = name;
  {
    // Its start tells PTX text from the binary formats; only PTX is read whole here.
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", path));
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (cucatch::jit::classifyImage(std::span(reinterpret_cast<const uint8_t*>(head.data()), head.size())) ==
        cucatch::jit::ImageKind::Ptx) {
      std::string text = head + std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      text.resize(std::strlen(text.c_str()));  // up to the terminator a PTX image handed to the driver has
      chosen = cucatch::jit::ChosenPtx{std::move(text), "PTX text"};
      if (moduleName.empty()) moduleName = path;
    }
  }
  std::optional<cucatch::jit::PtxCache> cache;
  std::string cacheDirectory = cacheDir == "auto" ? cucatch::jit::PtxCache::defaultDirectory() : cacheDir;
  if (!cacheDirectory.empty()) cache.emplace(cacheDirectory, uint64_t(1) << 30);
  cucatch::jit::Switches switches{flags.options(), flags.describe()};
  if (!chosen) {
    std::string noPtx;  // why not, where the status says so
    int status = chooseFromFatbinary(path, arch, index, chosen, moduleName, noPtx);
    if (status == kHelperNoPtx && !relocatableFrom.empty())
      return linkInputs(path, relocatableFrom, arch, output, moduleName.empty() ? path : moduleName, noPtx,
                        cache ? &*cache : nullptr, switches);  // (relocatable units: never whole)
    if (status == kHelperNoPtx) fmt::print(stderr, "cucatch-fatbin: {}\n", noPtx);
    if (status != 0) return status;
  }
  if (wholeProgram) {
    switches.options.wholeProgram = true;
    switches.key += " whole";
  }
  if (cucatch::jit::isInstrumented(*chosen->text)) {
    fmt::print(stderr, "cucatch-fatbin: {}: its {} is instrumented already\n", moduleName, chosen->description);
    return kHelperInstrumentedAlready;
  }
  // Register caps, measured with ptxas for the device (as cucatch-nvcc sets them); where that
  // cannot be done the module is instrumented without them, and the exit status says so.
  std::string identity = cucatch::jit::PtxCache::buildIdentity("/proc/self/exe");
  std::optional<cucatch::jit::RegisterCaps> caps;
  std::string withoutCaps;
  if (ptxasChoice != "none" && flags.measureRegisters()) {
    std::string ptxas = ptxasChoice == "auto" ? cucatch::toolchain::findPtxas() : ptxasChoice;
    if (ptxas.empty()) withoutCaps = "no ptxas found (CUCATCH_PTXAS, CUDA_HOME, /usr/local/cuda or PATH)";
    else caps = cucatch::jit::RegisterCaps{ptxas, archName};
  }
  cucatch::jit::InstrumentedPtx result;
  try {
    result = cucatch::jit::instrumentPtx(*chosen->text, moduleName, identity, cache ? &*cache : nullptr,
                                         caps ? &*caps : nullptr, switches);
  } catch (const std::exception& e) {
    if (!caps) throw;
    withoutCaps = fmt::format("measuring its registers failed: {}", e.what());
    result = cucatch::jit::instrumentPtx(*chosen->text, moduleName, identity, cache ? &*cache : nullptr, nullptr,
                                         switches);
  }
  std::ofstream out(output, std::ios::binary);
  out << result.text;
  if (!out) {
    fmt::print(stderr, "cucatch-fatbin: error: cannot write {}\n", output);
    return 2;
  }
  if (!withoutCaps.empty()) {
    fmt::print(stderr, "cucatch-fatbin: {}: its {}, instrumented without register caps: {}\n", moduleName,
               chosen->description, withoutCaps);
    return kHelperWithoutCaps;
  }
  fmt::print(stderr, "cucatch-fatbin: {}: its {}, instrumented{}{}\n", moduleName, chosen->description,
             caps ? " with register caps" : "", result.fromCache ? " (from the cache)" : "");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cucatch-fatbin: the device code in a program, library, object or .fatbin file"};
  app.require_subcommand(1);
  std::vector<std::string> files;
  auto* list = app.add_subcommand("list", "one line per fatbinary entry");
  list->add_option("files", files, "executables, shared libraries, objects, .fatbin files")->required();
  std::string file, dir;
  auto* ex = app.add_subcommand("extract", "write every entry, decompressed, to a directory");
  ex->add_option("file", file)->required();
  ex->add_option("-o,--output", dir, "directory")->required();
  std::string jitFile, arch, jitOutput, cacheDir, moduleName, ptxasChoice = "none";
  std::optional<size_t> container;
  auto* jitCommand = app.add_subcommand("jit", "the PTX JIT mode hands the driver for one container on a device, "
                                               "instrumented");
  jitCommand->add_option("file", jitFile)->required();
  jitCommand->add_option("--arch", arch, "the device's architecture (sm_90)")->required();
  jitCommand->add_option("--container", container,
                         "which container (0 .. n-1, in the order of the file's sections; default: the only one "
                         "with PTX the device runs)");
  jitCommand->add_option("-o,--output", jitOutput, "the instrumented PTX")->required();
  jitCommand->add_option("--cache", cacheDir,
                         "read and fill this JIT cache directory (auto: $CUCATCH_CACHE_DIR, else "
                         "$XDG_CACHE_HOME/cucatch, else ~/.cache/cucatch)");
  jitCommand->add_option("--name", moduleName, "the module's name in reports (default: FILE and its container)");
  jitCommand->add_option("--ptxas", ptxasChoice,
                         "cap each instrumented kernel's registers as cucatch-nvcc does, measuring with this ptxas for "
                         "--arch (auto: the toolkit's; none, the default: no caps; exit status 5 where they could not "
                         "be measured)");
  bool wholeProgram = false;
  jitCommand->add_flag("--whole-program", wholeProgram,
                       "the container is loaded as a module of its own (not a link's input): its PTX is all the "
                       "device code its kernels run (cucatch-ptx --whole-program). Not for the units --relocatable-from "
                       "writes, which are relocatable");
  std::string relocatableFrom;
  jitCommand->add_option("--relocatable-from", relocatableFrom,
                         "where FILE (one container) has no PTX for --arch: if it was linked from the relocatable "
                         "device code (-rdc) of this program or library, write the units to link in its place, "
                         "their PTX instrumented, to -o (exit status 6)");
  // cucatch-ptx's switches: given one by one, or as CUCATCH_PTX_FLAGS holds them (one string,
  // which the runtime passes on: --ptx-flags).
  cucatch::tools::CheckFlags checkFlags;
  checkFlags.addTo(*jitCommand);
  std::string ptxFlags;
  jitCommand->add_option("--ptx-flags", ptxFlags,
                         "cucatch-ptx's options in one string, as CUCATCH_PTX_FLAGS gives them to cucatch-nvcc: the "
                         "switches that choose the checks apply; those about building (--stats, --ptxas, "
                         "--ptxas-arch, --ptxas-options, --module-name) are accepted and have no effect here");
  CLI11_PARSE(app, argc, argv);
  if (!ptxFlags.empty()) {
    CLI::App given{"CUCATCH_PTX_FLAGS"};
    checkFlags.addTo(given);
    bool stats = false;
    std::string ignored;
    given.add_flag("--stats", stats);
    for (const char* name : {"--ptxas", "--ptxas-arch", "--ptxas-options", "--module-name"}) given.add_option(name, ignored);
    try {
      auto words = cucatch::toolchain::splitOptions(ptxFlags);
      std::reverse(words.begin(), words.end());  // CLI11 takes them last first
      given.parse(words);
    } catch (const CLI::ParseError& e) {
      fmt::print(stderr, "cucatch-fatbin: error: CUCATCH_PTX_FLAGS '{}': {}\n", ptxFlags, e.what());
      return 2;
    }
  }
  try {
    if (*jitCommand) return jit(jitFile, arch, container, jitOutput, cacheDir, moduleName, ptxasChoice, checkFlags,
                                relocatableFrom, wholeProgram);
    if (*list) {
      std::vector<ListedEntry> all;
      for (const auto& f : files) {
        auto entries = listFile(f);
        all.insert(all.end(), entries.begin(), entries.end());
      }
      fmt::print("{}", formatListing(all));
      return 0;
    }
    return extract(file, dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "cucatch-fatbin: error: {}\n", e.what());
    return 2;
  }
}
