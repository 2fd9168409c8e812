// cucatch-ptx: the PTX rewriter on its own, for compiler engineers and tests.
//
//   cucatch-ptx [--mode=check|none] [--stats] [--register-limit=measure|none] IN.ptx -o OUT.ptx
//   ('-' for stdin / stdout)
//
// With --register-limit=measure (the default) the original module is first compiled by ptxas for
// its .target (or --ptxas-arch) to learn each kernel's registers, and each instrumented kernel gets
// a .maxnreg under which every block size the original accepted still launches.
//
// Exit codes: 0 success; 2 the input could not be read or is not valid PTX (diagnostics on
// stderr as file:line:col: error: ..., and no output file is written); 1 the output could
// not be written.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <tuple>

#include "CheckFlags.h"
#include "instrument/Instrument.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "toolchain/Ptxas.h"
#include "toolchain/RegisterLimits.h"

#ifndef CUCATCH_DEFAULT_NVCC
#define CUCATCH_DEFAULT_NVCC ""
#endif

namespace {

bool readInput(const std::string& path, std::string& text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "cucatch-ptx: error: cannot open '{}': {}\n", path, std::strerror(errno));
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  text = std::move(ss).str();
  return true;
}

// Writes through a temporary file renamed into place, so a failure never leaves a partial
// output behind.
bool writeOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::string tmp = path + ".cucatch-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush()) {
      fmt::print(stderr, "cucatch-ptx: error: cannot write '{}': {}\n", path, std::strerror(errno));
      std::filesystem::remove(tmp);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    fmt::print(stderr, "cucatch-ptx: error: cannot write '{}': {}\n", path, ec.message());
    std::filesystem::remove(tmp);
    return false;
  }
  return true;
}

void printStats(const std::string& name, const cucatch::instrument::UnitResult& r) {
  const cucatch::instrument::Stats& s = r.stats;
  size_t instrumented = 0, unchecked = 0;
  for (const auto& [k, n] : s.instrumented) instrumented += n;
  for (const auto& [k, n] : s.unchecked) unchecked += n;
  fmt::print(stderr,
             "{}: {} accesses instrumented, {} left unchecked, {} proven in bounds statically; {} metadata reads; "
             "{} accesses reached by several bases\n",
             name, instrumented, unchecked, s.provenInBounds, s.metadataReads, s.phiAccesses);
  for (const auto& [k, n] : s.instrumented) fmt::print(stderr, "  instrumented {:>6}  {}\n", n, k);
  for (const auto& [k, n] : s.unchecked) fmt::print(stderr, "  unchecked    {:>6}  {}\n", n, k);
  // Counts printed only when not zero: (label, count, what it counts).
  const std::tuple<const char*, size_t, const char*> counts[] = {
      {"coalesced", s.coalescedChecks,
       "accesses covered by another access's range check (same address, straight-line code)"},
      {"loop range", s.loopRangeChecks,
       "accesses in strided loops checked once for the loop's whole range (their own checks where it fails)"},
      {"barrier sync", s.barrierResyncs,
       "calls of functions that wait at a block barrier (cg::sync in a debug build) given a bar.warp.sync before "
       "them, so that the warp arrives whole despite the checks' branches"},
      {"warp resync", s.warpResyncs,
       "kernels whose warp collectives (shfl.sync, vote.sync, ...) all sit in one block, outside loops, given a "
       "bar.warp.sync on the first one's mask, so that ptxas reconverges the warp there despite the checks' "
       "branches"},
      {"dominated", s.dominatedChecks,
       "accesses whose range a dominating access's check through the same address already covered"},
      {"untagged only", s.untaggedUnchecked,
       "addresses of unchecked accesses (wmma, bulk and tensor copies, sizes known only at run time) and of "
       "prefetch, discard and applypriority, untagged so that they reach the memory meant"},
      {"family", s.familyChecks,
       "accesses between the lowest and highest address of their family (one address expression at several "
       "constants, in one or two places), which checks of its extremes before its first access cover"},
      {"guarded family", s.guardedFamilyChecks,
       "accesses of a family across guards (each under its own condition), whose checks run only in a copy of "
       "the code between them, where a test of the family's extremes before it fails"},
      {"region copies", s.regionCopies,
       "regions of code copied with their checks for the families across guards in them"},
      {"whole region", s.dynamicSharedWhole,
       "dynamic shared memory accesses checked against the whole region (parts not asked for with --shared-parts, "
       "or not told apart)"},
      {"parts", s.dynamicSharedParts,
       "dynamic shared memory accesses checked against the part of it the kernel carved (--shared-parts)"},
      {"shared passed", s.sharedPassedAccesses,
       "shared accesses through a pointer parameter converted to a shared address, checked against its callers' bounds"},
      {"shared window", s.sharedWindowAccesses,
       "shared accesses through addresses not made from a variable, checked against the block's shared memory"},
      {"frame", s.localWholeFrame,
       "local accesses checked against their function's whole frame (its arrays not told apart, or "
       "--no-local-objects)"},
      {"local arrays", s.localArrays, "local accesses checked against the array of the frame they address"},
      {"kept whole", s.localFramesKeptWhole,
       "frames whose arrays are not told apart: an access made from one array's start has a bounded offset that "
       "reaches another array of the frame"},
      {"array bounds", s.localArrayPointers,
       "pointers into a frame given the bounds of the array they are made from, for generic accesses (a debug "
       "build's, or one passed to a callee)"},
      {"alloca blocks", s.localAllocaBlocks, "local accesses checked against the block an alloca made"},
      {"passed", s.metadataArguments, "pointer arguments whose bounds go with them into the module's own functions"},
      {"received", s.metadataParameters, "pointer parameters given their bounds by every caller, not read from the tables"},
      {"launch twins", s.launchTwins,
       "kernels given a twin that takes their pointer parameters' bounds from the launch, which the runtime "
       "launches in their place (their accesses are counted once, as the kernel's)"},
      {"versioned", s.launchVersions,
       "kernels given a second version of their body, run where the launch's block dimensions and dynamic shared "
       "memory satisfy the condition tested at entry"},
      {"launch proven", s.launchProvenChecks,
       "shared accesses the second version runs without a check: in bounds for every launch that satisfies it"},
      {"entry points", s.metadataEntryPoints,
       "functions other units may call, given an entry point that takes their pointers' bounds (relocatable code)"},
      {"forwarders", s.metadataForwarders,
       "other units' functions called through a .weak entry point, for where their unit defines none"},
      {"own bodies", s.privateBodies,
       ".visible and .weak functions whose body this unit's own calls reach with no linkage, so that they are "
       "given bounds and the frame table as the unit's other functions are (relocatable code)"},
      {"window bases", s.sharedWindowBases,
       "generic pointers of unknown origin bounded by the shared window where isspacep places them there"},
      {"frame bases", s.liveFrameBases,
       "generic pointers of unknown origin in kernels bounded by the kernel's own frame where isspacep places them in "
       "local memory (use after scope)"},
      {"frame table", s.frameTableFunctions, "device functions given their thread's frame table (FrameTable.h)"},
      {"table kernels", s.frameTableKernels, "kernels that make a frame table for the device functions they call"},
      {"table pushes", s.frameTablePushes, "local variables and alloca'd blocks recorded in the frame table"},
      {"table bases", s.frameTableBases,
       "generic pointers of unknown origin looked up in the frame table where isspacep places them in local memory "
       "(use after scope), in device functions and in kernels that call one that may take it"},
      {"frame tags", s.frameTaggedPointers,
       "generic pointers into a device function's own frame tagged with its call's serial, which the frame table "
       "keeps too (a stale pointer into a frame a later call reused: use after scope)"},
      {"tag untags", s.frameTagUntags,
       "generic addresses and cvta.to.local operands not otherwise untagged, in a module with frame tags"},
      {"printf args", s.printfArgumentsStripped,
       "printf arguments that may be pointers, frame tags stripped in the argument buffer before the call"},
      {"untagged", s.untaggedCallArguments, "pointer arguments of calls to functions outside the module"},
      {"device heap", s.deviceHeapCalls, "malloc / aligned malloc / free calls sent to cucatch's wrappers"},
  };
  for (const auto& [label, n, what] : counts)
    if (n) fmt::print(stderr, "  {:<13}{:>6}  {}\n", label, n, what);
  if (!s.frameTableOff.empty()) fmt::print(stderr, "  no frame table: {}\n", s.frameTableOff);
  if (!s.frameTagsOff.empty()) fmt::print(stderr, "  no frame tags: {}\n", s.frameTagsOff);
  for (const auto& k : r.kernels) {
    if (!k.boundedBy.empty())
      fmt::print(stderr, "  kernel {}: bounded by its own {}\n", k.name, k.boundedBy);
    else if (!k.moduleCapBecause.empty())
      fmt::print(stderr, "  kernel {}: {} registers instrumented, {} originally: limited to {} for the whole module "
                         "(ptxas -maxrregcount: {})\n", k.name,
                 k.instrumentedRegisters ? std::to_string(*k.instrumentedRegisters) : "?",
                 k.originalRegisters ? std::to_string(*k.originalRegisters) : "?", *k.registerLimit, k.moduleCapBecause);
    else if (k.registerLimit && !k.originalRegisters && cucatch::instrument::isLaunchTwin(k.name))
      // (boundTwinRegisters: the twin takes no more than its kernel, whose original is not measured.)
      fmt::print(stderr, "  kernel {}: {} registers instrumented: limited to {} (.maxnreg), its kernel's count (or "
                         "32, below which no occupancy is lost), so that launched in the kernel's place it keeps "
                         "the kernel's occupancy\n",
                 k.name, k.instrumentedRegisters ? std::to_string(*k.instrumentedRegisters) : "?", *k.registerLimit);
    else if (k.registerLimit)
      fmt::print(stderr, "  kernel {}: {} registers instrumented, {} originally: limited to {} (.maxnreg)\n", k.name,
                 k.instrumentedRegisters ? std::to_string(*k.instrumentedRegisters) : "?",
                 k.originalRegisters ? std::to_string(*k.originalRegisters) : "?", *k.registerLimit);
    else if (k.instrumentedRegisters)
      fmt::print(stderr, "  kernel {}: {} registers instrumented, every block size still fits\n", k.name,
                 *k.instrumentedRegisters);
    else
      fmt::print(stderr, "  kernel {}: registers not measured\n", k.name);
  }
  for (const auto& [kernel, s] : r.stackReserves)
    fmt::print(stderr, "  kernel {}: its stack under recursion grew by at most {:.3f}x + {} bytes: the runtime raises "
                       "the stack limit to match\n",
               kernel, s.ratioPerMille / 1000.0, s.extraBytes);
  for (const auto& kernel : r.stackUnbounded)
    fmt::print(stderr, "  kernel {}: its stack under recursion cannot be bounded (a recursive function with no frame "
                       "of its own has one instrumented): a recursion at the stack limit may overflow it\n",
               kernel);
  for (const auto& d : r.deviceFunctions)
    fmt::print(stderr, "  device function {}: {} registers instrumented, {} originally: limited to {} for the whole "
                       "module (ptxas -maxrregcount: {})\n", d.name, *d.instrumentedRegisters,
               d.originalRegisters ? std::to_string(*d.originalRegisters) : "?", *d.registerLimit, d.moduleCapBecause);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cucatch-ptx: instrument a PTX module for memory-safety checking"};
  std::string input, output;
  std::string mode = "check";
  bool stats = false;
  std::string moduleName;
  app.add_option("input", input, "input PTX file ('-' for stdin)")->required();
  app.add_option("-o,--output", output, "output PTX file ('-' for stdout)")->required();
  app.add_option("--mode", mode,
                 "check (default): instrument global and generic accesses (Shadow TBB); "
                 "none: parse and print the module unchanged (round trip)")
      ->check(CLI::IsMember({"none", "check"}));
  app.add_flag("--stats", stats,
               "print to stderr how many accesses were instrumented, by space and kind, and "
               "how many were left unchecked and why");
  app.add_option("--module-name", moduleName,
                 "the module's name in the site table, which reports show (default: the input path; "
                 "cucatch-nvcc passes the .cu file and the virtual architecture)");
  cucatch::tools::CheckFlags flags;
  flags.addTo(app);
  std::string ptxas, ptxasArch, ptxasOptions;
  std::string reuseDirectory;
  bool wholeProgram = false;
  app.add_option("--ptxas", ptxas, "the ptxas that measures the original (default: the toolkit's)");
  app.add_option("--ptxas-arch", ptxasArch, "the architecture to measure for (default: the module's .target)");
  app.add_option("--ptxas-options", ptxasOptions,
                 "options the module will be compiled with (-maxrregcount=N, -O0, ...): used when measuring, "
                 "and the cap never exceeds -maxrregcount");
  app.add_option("--ptxas-reuse-dir", reuseDirectory,
                 "a directory where the instrumented module's object, compiled with exactly --ptxas-options to "
                 "measure its registers, stays for cucatch-nvcc's ptxas, which takes it instead of compiling the "
                 "same text with the same options again")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--whole-program", wholeProgram,
               "the module is all the device code its kernels run (nvcc without -rdc; cucatch-nvcc says so): its "
               ".visible device functions are called from nowhere else, so pointers passed to them carry their "
               "callers' bounds too (refused with --ptxas-options=--compile-only)");
  CLI11_PARSE(app, argc, argv);
  if (wholeProgram && cucatch::toolchain::compilesRelocatable(cucatch::toolchain::splitOptions(ptxasOptions))) {
    fmt::print(stderr, "cucatch-ptx: error: --whole-program with --compile-only: relocatable code is not a whole "
                       "program\n");
    return 2;
  }

  std::string text;
  if (!readInput(input, text)) return 2;
  std::string sourceName = input == "-" ? "<stdin>" : input;
  auto result = cucatch::ptx::parseModule(text, sourceName);
  if (!result.ok()) {
    for (const auto& d : result.errors) fmt::print(stderr, "{}\n", d.str());
    return 2;
  }
  cucatch::ptx::Module& module = *result.module;
  if (!moduleName.empty()) module.sourceName = moduleName;
  std::optional<unsigned> moduleCap;  // ptxas -maxrregcount the whole module needs
  if (mode == "check") {
    cucatch::instrument::InstrumentOptions options = flags.options();
    options.wholeProgram = wholeProgram;
    try {
      if (flags.measureRegisters() && !module.functions().empty()) {
        std::string arch = ptxasArch.empty() ? module.smTarget() : ptxasArch;
        auto limits = cucatch::instrument::registerFileLimits(arch);
        if (!limits) {
          fmt::print(stderr, "{}: error: cannot tell the register file of target '{}' (use --ptxas-arch, or "
                             "--register-limit=none)\n", sourceName, arch);
          return 2;
        }
        if (ptxas.empty()) ptxas = cucatch::toolchain::findPtxas(CUCATCH_DEFAULT_NVCC);
        if (ptxas.empty()) {
          fmt::print(stderr, "{}: error: no ptxas found to measure the kernels' registers (use --ptxas, "
                             "CUCATCH_PTXAS, or --register-limit=none)\n", sourceName);
          return 2;
        }
        options.registerLimit = cucatch::toolchain::ptxasRegisterLimits(
            ptxas, arch, cucatch::toolchain::splitOptions(ptxasOptions), text, sourceName, reuseDirectory);
      }
      auto r = cucatch::instrument::instrumentModule(module, options);
      if (stats) printStats(sourceName, r);
      moduleCap = cucatch::instrument::moduleRegisterCap(r.kernels, r.deviceFunctions);
    } catch (const cucatch::ptx::InputError& e) {  // a directive's value refused
      fmt::print(stderr, "{}\n", cucatch::ptx::Diagnostic{sourceName, e.loc.line, e.loc.column, e.what()}.str());
      return 2;
    } catch (const std::exception& e) {  // refusals, ptxas failures, a malformed -maxrregcount
      fmt::print(stderr, "{}: error: {}\n", sourceName, e.what());
      return 2;
    }
  }
  // A cap ptxas must apply to the whole module travels in the PTX, for cucatch-nvcc's ptxas.
  std::string marker;
  if (moduleCap) marker = cucatch::toolchain::registerCapMarker(*moduleCap);
  return writeOutput(output, marker + cucatch::ptx::print(module)) ? 0 : 1;
}
