// Violations and how they are told: one text report per violation (every line starts with
// "cucatch:", the first with "cucatch: ERROR:"), and the same as JSON for CUCATCH_REPORT. Also
// the module site tables the rewriter embeds (__cucatch_sites). No CUDA here.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "callgraph/StackBounds.h"
#include "runtime/Metadata.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::runtime {

// One instrumented access, as the rewriter described it.
struct Site {
  std::string function;     // PTX (mangled) name
  std::string file;         // from .loc, empty without line info
  uint32_t line = 0, column = 0;
  uint32_t ptxLine = 0;
  std::string instruction;  // the PTX text of the access
  std::string inlinedFile;  // where the code of `file:line` was inlined, if it was
  uint32_t inlinedLine = 0, inlinedColumn = 0;
  bool entry = false;       // `function` is a kernel
  std::string space;        // the access's: global, generic, shared, const
  std::string object;       // the variable checked against (its symbol), if the rewriter knew it
  uint64_t objectBytes = 0;  // 0 for dynamic shared memory (the record has the launch's size)
  std::string objectSpace;  // the variable's: global (__device__), const (__constant__), shared
  bool objectDynamic = false;  // the launch's dynamic shared memory (extern __shared__)
  bool objectPart = false;     // one part of it, as the kernel carved it (--shared-parts)
  // (Local:) one array of the frame `object`, at this offset in it, objectBytes long, in a frame
  // of objectFrameBytes (0 where the site table does not say).
  bool objectFrameArray = false;
  uint64_t objectFrameOffset = 0;
  uint64_t objectFrameBytes = 0;
  // The object is one of the function's own frame that the bounds' word names (the pointer may
  // be made from one of several of its arrays), not one a caller gave with the pointer.
  bool objectOfOwnFrame = false;
  // The access addresses a window of its own (shared or const space), not device memory.
  bool inWindow() const { return space == "shared" || space == "const" || space == "local"; }
};

// A kernel of an instrumented unit: what ptxas counted in the original, and the cap the
// instrumented kernel was given (instrument/RegisterLimit.h).
struct KernelRecord {
  std::optional<unsigned> registers, registerLimit;
  std::string boundedBy;  // its own .maxntid / .reqntid / .maxnreg
  // Where its stack under recursion grew (instrument/StackReserve.h): a stack of S bytes the
  // original ran in takes at most S * stackRatioPerMille / 1000 + stackExtraBytes instrumented.
  std::optional<uint32_t> stackRatioPerMille;
  uint64_t stackExtraBytes = 0;
  // Its twin that takes its pointer parameters' bounds from the launch (instrument/LaunchMetadata.h):
  // the twin's name, the positions of those parameters among the kernel's `paramCount`, in order.
  std::string launchTwin;
  std::vector<uint32_t> launchParams;
  uint32_t paramCount = 0;
};

// An instrumented module's site table, parsed from its JSON. Throws std::runtime_error on
// malformed JSON or a different ABI.
struct SiteTable {
  std::string module;  // the PTX file the rewriter read
  std::vector<Site> sites;
  std::map<std::string, KernelRecord> kernels;  // the unit's kernels, by (mangled) name
  // The variables metadata words name (abi::kMetaStateVariable): a Site's function and object
  // fields.
  std::vector<Site> objects;
  // Relocatable code: the unit's part of its linked module's call graph, and which of its
  // functions have no linkage (instrument/StackReserve.h; moduleCallGraph joins the parts).
  callgraph::Functions callGraph;
  std::set<std::string> localFunctions;
  static SiteTable parse(std::string_view json);
};

// The call graph of a linked module from its units' parts (`units`, by unit id): a function with
// linkage is one function wherever it is defined (a .weak one's definitions the largest of
// them: the device link keeps one), a function without is its unit's own (named "NAME@UNIT"
// here, and so are its unit's calls of it). A call of a function no part defines (a unit built
// by plain nvcc, the CUDA system's) has no frame of the graph's, and a cycle through such a unit
// is not seen.
callgraph::Functions moduleCallGraph(const std::map<uint32_t, const SiteTable*>& units);

// A malloc or free in a kernel (abi::HeapEvent), with its site looked up.
struct DeviceHeapCall {
  const Site* site = nullptr;
  std::string module;
  std::array<uint32_t, 3> block{}, thread{};
};
// A block of the device heap (malloc, new in a kernel) an access or a free was checked against.
struct DeviceHeapBlock {
  uint64_t base = 0, size = 0;
  bool live = true;
  bool freedBefore = false;  // the entry says freed (not live, and not an entry never given out)
  std::optional<DeviceHeapCall> allocated, freed;
  // The tag's logged malloc (free) was another block's, not shown: the tag went to another
  // block before the report.
  bool allocatedUnknown = false, freedUnknown = false;
};

enum class ViolationKind { OutOfBounds, UseAfterFree, UseAfterScope, NullPointer, DoubleFree, InvalidFree, Leak };
std::string_view violationKindName(ViolationKind k);

struct Violation {
  ViolationKind kind = ViolationKind::OutOfBounds;
  // Kernel accesses:
  std::string access;  // "read", "write", "atomic"
  uint32_t size = 0;
  uint64_t address = 0;  // untagged
  uint64_t checkedBase = 0, checkedSize = 0;  // the bounds the access was checked against
  const Site* site = nullptr;
  // The variable whose bounds the pointer carried (abi::kMetaStateVariable) where the site names
  // none: a pointer to a __shared__ array or a local frame that the site's function was given,
  // with its bounds, by its caller (instrument/MetadataParams.h).
  const Site* passedObject = nullptr;
  std::string module;
  // The kernel that was running: the site's function when it is a kernel, else the kernels
  // launched since the last synchronization from modules that contain the site (mangled).
  std::vector<std::string> kernels;
  std::array<uint32_t, 3> block{}, thread{};
  uint8_t pointerTag = 0;
  // Checked against the block's whole shared memory (abi::kMetaStateSharedWindow): a shared
  // address of unknown origin.
  bool sharedWindow = false;
  // Checked against the local memory live in a kernel (abi::kMetaStateLiveFrames): a local
  // address of unknown origin in a kernel, bounded by `liveFrame`, the kernel's own frame (a
  // Site naming it: its function and symbol), or by none.
  bool liveFrames = false;
  const Site* liveFrame = nullptr;
  // Checked against a frame a device function found in its thread's frame table
  // (abi::kMetaStateFrameTable): a local address of unknown origin, in a frame live on the
  // thread's stack (an out-of-bounds access reports it), or in none (a use after scope:
  // `tableFrame` is the frame that returned there, where the table still held it). `tableFrame`
  // names the frame's function and symbol; null for an alloca'd block, or for none.
  bool frameTable = false;
  const Site* tableFrame = nullptr;
  // ... with the state abi::kMetaStateFrameOverwritten or kMetaStateFrameReused: the address is
  // inside a live frame whose serial is not the pointer's frame tag: the pointer's own frame
  // returned, and a later call's frame lies where it was (a use after scope). `tableFrame` is
  // the pointer's frame (Overwritten), or, where the table no longer held it, the live one
  // (Reused: `reusedFrameLive`).
  bool frameReused = false;
  bool reusedFrameLive = false;
  // Checked against a part of the dynamic shared memory: where the part starts in the region.
  uint64_t partOffset = 0;
  bool staleTag = false;  // the pointer's temporal tag no longer matches its table entry
  // The allocation the access was checked against (or freed twice, or leaked).
  const Allocation* allocation = nullptr;
  // ... or the device-heap block (the pointer's tag is a device-heap tag).
  std::optional<DeviceHeapBlock> heapBlock;
  // Host-side violations (frees): where they happened.
  Backtrace backtrace;
  uint32_t repeats = 0;  // identical violations folded into this one
};

// The state byte of the record's metadata word (abi::kMetaStateShift): an entry's state, or what
// else the bounds were (abi::kMetaStateSharedWindow, kMetaStateVariable, kMetaStateLiveFrames).
inline uint32_t metaState(const abi::ErrorRecord& record) { return (record.meta >> abi::kMetaStateShift) & 0xFF; }
// The record's access was checked against the block's shared window (abi::kMetaStateSharedWindow).
bool checkedAgainstSharedWindow(const abi::ErrorRecord& record);
// ... against the local memory live in a kernel (abi::kMetaStateLiveFrames).
bool checkedAgainstLiveFrames(const abi::ErrorRecord& record);
// The record's bounds are from a device function's frame table (abi::kMetaStateFrameTable).
bool checkedAgainstFrameTable(const abi::ErrorRecord& record);
// Turns an error record into a violation; `site` and `allocation` are looked up by the caller
// (a refused device free, abi::kAccessFree, is a double or an invalid free).
Violation fromRecord(const abi::ErrorRecord& record, const Site* site, std::string module,
                     const Allocation* allocation);

// Folds violations of one site against one allocation into the first (counted in repeats).
std::vector<Violation> fold(std::vector<Violation> violations);

using Symbolizer = std::function<std::string(uintptr_t)>;
// A C++ name as source spells it ("vis(int*, int)", and "vis(int*, int) [clone $1]" for nvcc's
// specialized copy `_Z3visPii$1`); a name that is not mangled, as it is.
std::string demangle(const std::string& mangled);
// Writes `text` to stderr in one write(2), so that reports of several threads do not
// interleave by line.
void writeStderr(const std::string& text);
std::string formatText(const Violation& v, const Metadata& metadata, const Symbolizer& symbolize);
nlohmann::json toJson(const Violation& v, const Symbolizer& symbolize);

}  // namespace cucatch::runtime
