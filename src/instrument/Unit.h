// One compilation unit as cucatch instruments it: the accesses the passes checked (sites), what
// they left out and why (stats), the kernels and their register limits, and what every
// instrumented module carries for the runtime (src/runtime/cucatch_abi.h): the state symbol, the
// ABI marker, the unit's marker kernel and its site table.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "instrument/MetadataParams.h"
#include "instrument/RegisterLimit.h"
#include "instrument/Sequences.h"
#include "instrument/StackReserve.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

// One instrumented access, for the runtime's reports (the module's site table).
struct Site {
  uint32_t id = 0;
  std::string function;
  uint32_t ptxLine = 0;
  uint32_t file = 0, line = 0, column = 0;  // from the last .loc before the access; 0: none
  // Where the code of that .loc was inlined (its inlined_at attribute, followed back to the
  // outermost place where the code was inlined through several functions); 0: not inlined.
  uint32_t inlinedFile = 0, inlinedLine = 0, inlinedColumn = 0;
  bool entry = false;  // the function is a kernel
  std::string instruction;
  std::string kind;   // read / write / atomic
  unsigned size = 0;
  std::string space;  // the access's: global / generic / const / shared
  // The variable every base of the address is made from (a `mov` of its symbol), which the
  // access is checked against; empty when the bases are pointers.
  std::string object;
  uint64_t objectBytes = 0;  // 0 for dynamic shared memory (its size is the launch's)
  std::string objectSpace;   // the variable's: global (__device__), const, shared
  // Sized at run time (the record carries the size): the launch's dynamic shared memory
  // (extern __shared__), or (local) a block alloca made.
  bool objectDynamic = false;
  // Checked against one part of the dynamic shared memory (--shared-parts): the record's size
  // carries the part's start in its high half (abi::ErrorRecord).
  bool objectPart = false;
  // (Local:) checked against one array of the frame `object` (analysis/FrameLayout.h): where it
  // starts in the frame, and the frame's size; objectBytes is the array's.
  bool objectFrameArray = false;
  uint64_t objectFrameOffset = 0;
  uint64_t objectFrameBytes = 0;
  // (Local:) the object is one of the function's own frame that only the run tells (a pointer
  // made from one of several of its arrays, or from an array or the whole frame): the report
  // names the one the bounds' word names, not one a caller gave.
  bool objectOfOwnFrame = false;
};

// The name of a function's entry point that takes its pointers' bounds from its callers, in
// relocatable code (RelocatableCalls.h): the function's name and this suffix.
inline constexpr std::string_view kMetadataEntrySuffix = "__cc_meta";
// The name of the body that a relocatable unit's own calls of its .visible or .weak function
// reach (RelocatableCalls.h): the function's name and this suffix; it has no linkage.
inline constexpr std::string_view kPrivateBodySuffix = "__cc_body";
// The name of a kernel's twin that takes its pointer parameters' bounds from the launch
// (LaunchMetadata.h): the kernel's name and this suffix.
inline constexpr std::string_view kLaunchTwinSuffix = "__cc_launch";
inline bool isLaunchTwin(std::string_view name) { return name.ends_with(kLaunchTwinSuffix); }
// The function a report names for `f`: its own name, or the function whose entry point
// (kMetadataEntrySuffix), private body (kPrivateBodySuffix) or launch twin (kLaunchTwinSuffix) it is.
std::string sourceFunctionName(const ptx::Function& f);
std::string sourceFunctionName(std::string_view name);
// Whether `module` carries DWARF (nvcc -G): its .debug_info names the functions' labels, so a
// function is not copied (launch twins) nor its body doubled (launch versions) there.
bool hasDebugSections(const ptx::Module& module);

// Where statement i of a function comes from: the last .loc before it (0: none), and where the
// code of that .loc was inlined (its inlined_at attribute, followed back along a chain of
// inlined .loc directives to the outermost place; 0: not inlined).
struct SourcePlace {
  uint32_t file = 0, line = 0, column = 0;
  uint32_t inlinedFile = 0, inlinedLine = 0, inlinedColumn = 0;
};
std::vector<SourcePlace> sourcePlaces(const ptx::Function& f);
// A site for statement `statement` of `f` (an instruction) at `place`, with `id`: the function,
// PTX line, source place and instruction text; its kind, size and space are the caller's.
Site siteAt(const ptx::Function& f, size_t statement, const SourcePlace& place, uint32_t id);

// The unit object of a local variable of `f` (its frame, `symbol`, of `bytes`): what a metadata
// word's tag byte names (UnitResult::objectId) in a report of its frame.
Site localFrameObject(const ptx::Function& f, const std::string& symbol, uint64_t bytes);
// ... and of one array of that frame (analysis/FrameLayout.h): `bytes` from `start`.
Site localArrayObject(const ptx::Function& f, const std::string& symbol, uint64_t frameBytes, uint64_t start,
                      uint64_t bytes);

struct Stats {
  std::map<std::string, size_t> instrumented;  // "global read", "generic write", ...
  std::map<std::string, size_t> unchecked;     // reason -> count
  // Accesses proven inside their variable ([sym+off], or a shared array's symbol plus bounded
  // terms): no check needed.
  size_t provenInBounds = 0;
  // Checked accesses to dynamic shared memory (extern __shared__) that are checked against the
  // whole region, not one part of it carved by the kernel.
  size_t dynamicSharedWhole = 0;
  // ... and those checked against the part of it the kernel carved (--shared-parts).
  size_t dynamicSharedParts = 0;
  // Checked local accesses against one array of their frame (analysis/FrameLayout.h), and those
  // against the whole frame; frames whose arrays were not told apart for a bounded offset that
  // reaches from one into another (FrameLayout); pointers given the bounds of the array they are
  // made from, not the frame's, for generic accesses (GlobalChecks: a debug build's, one passed
  // to a callee; counted at each start).
  size_t localArrays = 0;
  size_t localWholeFrame = 0;
  size_t localFramesKeptWhole = 0;
  size_t localArrayPointers = 0;
  // ... and those against the block an `alloca` made, its size the one asked for at run time.
  size_t localAllocaBlocks = 0;
  // Pointer arguments whose metadata goes with them into the module's own device functions, and
  // the parameters there that take it instead of reading the tables (MetadataParams.h).
  size_t metadataArguments = 0;
  size_t metadataParameters = 0;
  // Relocatable code (RelocatableCalls.h): functions other units may call, given an entry point
  // that takes the bounds; and other units' functions this unit calls through a .weak one.
  size_t metadataEntryPoints = 0;
  size_t metadataForwarders = 0;
  // ... and the bodies of this unit's .visible and .weak functions that its own calls reach
  // instead, with no linkage (a .weak function's a copy).
  size_t privateBodies = 0;
  // Kernels given a twin that takes their pointers' bounds from the launch (LaunchMetadata.h);
  // the twins' accesses are not counted again.
  size_t launchTwins = 0;
  // Kernels given a second version of their body for launches that satisfy a condition on the
  // block's dimensions and dynamic shared memory (LaunchVersions.h), and the shared accesses it
  // runs without a check.
  size_t launchVersions = 0;
  size_t launchProvenChecks = 0;
  // Shared accesses whose check was folded into one range check with others through the same
  // address (straight-line code): counted among the instrumented, minus one per group.
  size_t coalescedChecks = 0;
  // Accesses left without a check of their own because a dominating check through the same
  // address covered their range (FunctionChecks::dominatedByCheck): counted among the
  // instrumented too.
  size_t dominatedChecks = 0;
  // Global accesses of a family (analysis/AddressFamilies.h) left without a check of their own:
  // the checks of the family's lowest and highest address, before its first access, cover them.
  // Counted among the instrumented too.
  size_t familyChecks = 0;
  // Global accesses of a family across guards (analysis/AddressFamilies.h, guardedFamilies)
  // whose checks run only in the checked copy of their region, where the test of the family's
  // extremes before it fails; and the regions so copied.
  size_t guardedFamilyChecks = 0;
  size_t regionCopies = 0;
  // Addresses of unchecked accesses (wmma, bulk and tensor copies, sizes known only at run time)
  // and of memory hints (prefetch, discard, applypriority) that go through their untagged copy.
  size_t untaggedUnchecked = 0;
  // Global accesses in strided loops checked once for the loop's whole range before it (their
  // own checks run only where that fails): counted among the instrumented too.
  size_t loopRangeChecks = 0;
  // Kernels given a bar.warp.sync before their first warp-synchronous collective (WarpSync.h).
  size_t warpResyncs = 0;
  // Calls of functions that wait at a block barrier given a bar.warp.sync before them (WarpSync.h).
  size_t barrierResyncs = 0;
  // Base definitions of generic pointers of unknown origin that, where isspacep places them in
  // shared memory, take the block's shared window as their bounds; and shared accesses through
  // 32-bit addresses not made from a variable, checked against that window.
  size_t sharedWindowBases = 0;
  size_t sharedWindowAccesses = 0;
  // Shared accesses through a pointer parameter the function converts to a shared address
  // itself, checked against the bounds its callers pass (MetadataParams, SharedChecks).
  size_t sharedPassedAccesses = 0;
  // Base definitions of generic pointers of unknown origin in kernels that, where isspacep
  // places them in local memory, are bounded by the kernel's own frame, the only local memory
  // live there (an address elsewhere is in a frame that has returned: use after scope).
  size_t liveFrameBases = 0;
  // The frame table (FrameTable.h): device functions given it, kernels that make it, the frames
  // and alloca'd blocks pushed (statically), and base definitions of generic pointers of unknown
  // origin looked up in it where isspacep places them in local memory (in device functions, and
  // in kernels that call a function that may take it). Where
  // the module keeps none: why.
  size_t frameTableFunctions = 0;
  size_t frameTableKernels = 0;
  size_t frameTablePushes = 0;
  size_t frameTableBases = 0;
  std::string frameTableOff;
  // Frame tags (FrameTags.h): generic pointers into a device function's own frame tagged with
  // its call's serial; in a module with tags, generic addresses and `cvta.to.local` operands that
  // go through an untagged copy, and printf arguments stripped.
  size_t frameTaggedPointers = 0;
  size_t frameTagUntags = 0;
  size_t printfArgumentsStripped = 0;
  std::string frameTagsOff;  // why no function tags, where some would (FrameTags.h)
  size_t metadataReads = 0;   // READMETADATA sequences (base definitions)
  size_t phiAccesses = 0;     // accesses reached by more than one base definition
  size_t untaggedCallArguments = 0;  // pointer arguments of calls to code outside the module
  size_t deviceHeapCalls = 0;        // malloc / aligned malloc / free calls sent to cucatch's wrappers
  size_t functions = 0;
};

// A kernel's twin that takes its pointer parameters' bounds from the launch (LaunchMetadata.h).
struct LaunchTwin {
  std::string kernel;  // K
  std::string twin;    // K__cc_launch
  // K's parameters whose bounds the twin takes (their positions among K's parameters), in
  // parameter order: the twin's parameters after K's own are base, size and word for each.
  std::vector<MetadataParams::Param> params;
  size_t paramCount = 0;  // K's own parameters
};

struct UnitResult {
  uint32_t unit = 0;  // this compilation unit's id: a hash of the module as it came in
  std::vector<Site> sites;
  Stats stats;
  std::vector<FunctionLimit> kernels;  // every kernel of the unit (all are instrumented)
  // Relocatable code: the device functions whose registers the module's cap must bound.
  std::vector<FunctionLimit> deviceFunctions;
  uint32_t nextLabel = 0;            // labels the passes made ($__cc_okN), unique in the module
  bool usesSharedWindow = false;     // some check reads CUCATCH_DYNAMIC_SMEM_SYMBOL
  // The functions whose checks call the unit's frame-table lookup (FrameTable.h).
  std::set<std::string> frameLookups;
  // Where the arrays of each function's frames start (analysis/FrameLayout.h), as its checks
  // found them: function -> frame symbol -> starts; no frame kept whole. And from those, the
  // arrays of the frames the table records, by the frames' objects, for the lookup to narrow a
  // frame to the array an address is in (addFrameTable fills it).
  std::map<std::string, std::map<std::string, std::set<uint64_t>>> frameArrayStarts;
  FrameArrayTable frameArrays;
  // The device-heap functions whose calls go to cucatch's wrappers (instrument/DeviceHeap.h):
  // the wrappers the module must define.
  std::set<std::string> heapFunctionsWrapped;
  // The variables whose bounds metadata words name (abi::kMetaStateVariable): the object fields
  // and the function of a Site. objectId adds one (once) and gives its index + 1, or 0 where
  // there are 255 already.
  std::vector<Site> objects;
  uint8_t objectId(const Site& object);
  // The kernels whose stack the runtime must raise the context's limit for (StackReserve.h),
  // and those whose stack under recursion could not be bounded.
  std::map<std::string, StackReserve> stackReserves;
  std::vector<std::string> stackUnbounded;
  // Relocatable code: the unit's part of its linked module's call graph, with each function's
  // frame as compiled and in the original (StackReserve.h), and which of those functions have
  // no linkage (another unit's function of the same name is another function). The runtime
  // joins the parts of a module's units and raises the stack limit for its kernels from them.
  callgraph::Functions callGraph;
  std::set<std::string> localFunctions;
  // The kernels given a twin that takes its pointers' bounds from the launch (LaunchMetadata.h).
  std::vector<LaunchTwin> launchTwins;
};

// The id of `module` before any change (FNV-1a of its printed text). Identical input gives an
// identical id and table, which is what makes the (weak) tables of one unit linked twice merge.
uint32_t unitId(const ptx::Module& module);

// Throws std::runtime_error if `module` was instrumented before (it defines the state symbol).
void refuseInstrumented(const ptx::Module& module);
// Throws ptx::InputError (at the directive) for PTX the inserted code cannot be assembled with:
// PTX ISA before 3.1, 32-bit addresses, or an sm_1x target.
void refuseUnsupported(const ptx::Module& module);

// The site table as JSON (what the module embeds as __cucatch_sites_<unit>).
std::string siteTableJson(const ptx::Module& module, const UnitResult& result);

// Adds the state symbol and the ABI marker, and, when the unit has sites or kernels, its marker
// kernel and its site table (without which the runtime would not know the unit's kernels).
void addUnitDeclarations(ptx::Module& module, const UnitResult& result);

}  // namespace cucatch::instrument
