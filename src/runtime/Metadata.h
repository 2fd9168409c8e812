// The runtime's host-side metadata: which allocations exist, the pointers (tags) handed out
// for them, and the two device tables of cucatch_abi.h as host mirrors - the base & size
// table and the shadow map - ready to be uploaded before the next launch. No CUDA
// here: the interposer (next) feeds it allocation events and copies the dirty parts to the
// device. Layouts, tags and the shadow geometry come from cucatch_abi.h only.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/cucatch_abi.h"

namespace cucatch::runtime {

// ---- pointer tags -------------------------------------------------------------------------
inline uint8_t tagOf(uint64_t p) { return static_cast<uint8_t>(p >> abi::kTagShift); }
// Whether `tag` is one the device heap hands out (odd, abi::kFirstHeapTag and above), which
// this class never does.
inline bool isDeviceHeapTag(uint8_t tag) { return tag >= abi::kFirstHeapTag && tag % 2 == 1; }
inline uint64_t untag(uint64_t p) { return p & abi::kAddressMask; }
inline uint64_t withTag(uint64_t p, uint8_t tag) { return untag(p) | (uint64_t(tag) << abi::kTagShift); }

// ---- shadow map ---------------------------------------------------------------------------
// Host mirror of the shadow map: 32-byte granule -> BST index. Kept as runs of granules (one
// per allocation, give or take its padding), not as dense tables: a 1 MiB allocation is 32768
// granules, and filling them on the host cost more than the real cudaMalloc (bench/host). The
// device holds each 2 MiB page at the coarsest granule its runs allow (cucatch_abi.h):
// granuleShift() says which, leaf() builds the table.
class ShadowMap {
 public:
  static constexpr uint64_t kGranule = uint64_t(1) << abi::kShadowGranuleShift;
  static constexpr unsigned kPageGranuleBits = abi::kShadowPageShift - abi::kShadowGranuleShift;
  static constexpr uint64_t kPageGranules = uint64_t(1) << kPageGranuleBits;
  // Addresses at or above this the device walk does not reach (they find BST entry 0).
  static constexpr uint64_t kAddressLimit = uint64_t(1) << (abi::kShadowRootShift + abi::kShadowRootBits);

  // Maps every granule that [base, base + size) touches to `index` (0 unmaps). `onlyChanges`:
  // granules that map to it already are no change (no write); only where the caller knows the
  // device has what this map has there (an index taken back: Metadata::onAllocate), since a
  // cancelled allocation's mapping (PendingUpdates::cancel) stays here and never reached it.
  void map(uint64_t base, uint64_t size, uint32_t index, bool onlyChanges = false);
  // Unmaps the granules of [base, base + size) that map to `index` (and leaves the others).
  void unmapWhereMapped(uint64_t base, uint64_t size, uint32_t index);
  // What the device walk finds for an untagged address: 0 when nothing is mapped there.
  uint32_t lookup(uint64_t address) const;
  // The parts of the granules [from, to) (addresses on granule boundaries) that map to something:
  // (start, end, BST index) each, in increasing order.
  struct Part {
    uint64_t start, end;
    uint32_t value;
  };
  std::vector<Part> mapped(uint64_t from, uint64_t to) const;

  // What changed since the last takeWrites(), as runs of equal values within one 2 MiB page, in
  // 32-byte granules: exactly the changes that bring a device copy up to date, in order.
  struct Write {
    uint64_t page;   // address >> abi::kShadowPageShift
    uint32_t first;  // granule index within the page
    uint32_t count;
    uint32_t value;  // BST index
    bool operator==(const Write&) const = default;
  };
  std::vector<Write> takeWrites();
  bool hasWrites() const { return !writes_.empty(); }
  // Makes a change taken from another map (what a device copy holds: DeviceTables).
  void apply(const Write& w);

  // The coarsest granule, as a shift (abi::kShadowGranuleShift .. abi::kShadowPageShift), at
  // which `page` is exact: every change of value inside it falls on a granule boundary. The
  // page's shift when it holds one value throughout (nothing mapped, or one allocation).
  unsigned granuleShift(uint64_t page) const;
  // The page's table at granules of 2^shift bytes (shift <= granuleShift(page)): BST indices.
  std::vector<uint32_t> leaf(uint64_t page, unsigned shift) const;
  // The pages where anything is mapped, in increasing order.
  std::vector<uint64_t> pages() const;

 private:
  // Granules [first, end) map to `value` (never 0: unmapped granules have no run).
  struct Run {
    uint64_t end;
    uint32_t value;
  };
  // Makes granules [first, end) map to `value`, merging it with equal neighbours.
  void assign(uint64_t first, uint64_t end, uint32_t value);
  // Calls fn(lo, hi, value) for each run's part within granules [from, to), in order.
  template <class Fn>
  void forEachRunIn(uint64_t from, uint64_t to, Fn fn) const;
  // Cuts the run that holds `granule` (not at its start) in two there.
  void splitAt(uint64_t granule);
  // Appends a write, extending the last one where it continues it.
  void recordWrite(uint64_t page, uint32_t first, uint32_t count, uint32_t value);
  std::map<uint64_t, Run> runs_;  // by first granule; disjoint
  std::vector<Write> writes_;
};

// ---- allocations --------------------------------------------------------------------------
// Host return addresses, innermost first; symbolized only when a report needs them.
using Backtrace = std::vector<uintptr_t>;
enum class MemoryKind { Device, Pitched, Managed, HostMapped, StreamOrdered, HostRegistered };
std::string_view memoryKindName(MemoryKind k);

struct Allocation {
  uint64_t id = 0;       // also BstEntry::allocationId (low 32 bits)
  uint64_t base = 0;     // untagged
  uint64_t size = 0;
  uint32_t bstIndex = 0;
  uint8_t tag = 0;       // the tag in the pointer handed out (0: untagged)
  MemoryKind kind = MemoryKind::Device;
  bool live = true;
  bool byLibrary = false;  // allocated by a precompiled library, so handed out untagged
  // Its allocation or free was captured into a graph, whose launches write its entry again
  // (onAllocate's and onFree's `captured`): its index is never handed out again.
  bool replayed = false;
  Backtrace allocatedAt, freedAt;
};

struct MetadataConfig {
  bool tags = true;            // CUCATCH_TAGS: hand out tagged pointers
  uint32_t bstCapacity = 1u << 16;
  uint64_t padding = 32;       // bytes mapped past the end, so one-past-the-end maps home
  uint64_t extentAlign = 512;  // and on to this boundary, where no live allocation is (a power of two)
  uint64_t seed = 0x5eed;      // temporal tags
};

enum class FreeStatus { Ok, DoubleFree, InvalidFree };
struct FreeResult {
  FreeStatus status = FreeStatus::Ok;
  const Allocation* allocation = nullptr;  // the allocation freed, or freed before
  uint64_t base = 0;                       // untagged base to hand to the real free
};

class Metadata {
 public:
  explicit Metadata(MetadataConfig config = {});

  // Records an allocation made by the driver; returns the pointer to give the program: tagged,
  // unless tags are off, the memory is read by host code through the same pointer (managed,
  // host-mapped, host-registered), or `raw` (a precompiled library allocated it: its kernels
  // may keep the pointer in device memory, where no launch can untag it).
  // `inFreedOrder`: the caller knows that this allocation is in one stream's order behind the
  // stream-ordered free of the allocation at `base` (Runtime: both on one stream, their changes
  // kept pending). An untagged allocation then takes back the BST index of that allocation,
  // where it had the same size and kind and no tag: its mapping is on the device already, or
  // ahead in the stream, so the allocation changes one entry and no granule of the shadow map
  // (a cudaMallocAsync + cudaFreeAsync loop with tags off, or of a library's raw pointers).
  // `captured`: made in a stream being captured. Its table changes are captured with it (a
  // graph node writes the values taken at the capture), so every launch of the graph writes
  // them again, after its free too. So it takes a fresh indirect index (a direct one would be
  // lost to the few there are; one from the quarantine would have its previous holder's
  // unmapping captured too, which each launch would write over whatever is mapped there since;
  // the last fresh ones are kept for these), or none where none is fresh (untracked); and its
  // index is retired at its free, never quarantined, so that no later allocation's entry is
  // written over by a launch.
  uint64_t onAllocate(uint64_t base, uint64_t size, MemoryKind kind, Backtrace backtrace = {}, bool raw = false,
                      bool inFreedOrder = false, bool captured = false);
  // Records a free of `pointer` (possibly tagged). `captured`: freed in a stream being captured
  // (its entry is written again by every launch of the graph): its index is retired. A free of
  // an allocation made in a capture and freed already is no double free: the graph's launches
  // make it live again (freed outside the graph after each).
  FreeResult onFree(uint64_t pointer, Backtrace backtrace = {}, bool captured = false);
  // Takes back a successful onFree of the allocation at `base` (the driver refused the free).
  void undoFree(uint64_t base);
  // A device of the process reads pageable host memory (HMM, ATS): host memory the program
  // unregisters or frees is then memory kernels may go on reading, untracked, and malloc may
  // hand its addresses out again. So a host allocation's mapping goes at its free, from now on.
  void allowPageableAccess() { pageableAccess_ = true; }
  // Addresses of memory cucatch does not track (reserved by the driver's virtual memory
  // management, cuMemAddressReserve; mapped from another process, another API or a graph's
  // own allocation), and their release. Nothing is mapped there: an access through a raw
  // pointer into them passes, also where a freed allocation lay before, and no allocation's
  // extent past its end reaches into them. Ranges do not overlap: one made, or an allocation
  // the driver makes, where others lay ends those (the program released them by a call cucatch
  // does not see: a graph destroyed). `endsAtFree`: a cuMemFree of it releases it too (an
  // imported pool pointer, an external buffer; not a graph's allocation, which a free outside
  // the graph leaves to the graph's next launch at the same addresses).
  struct UntrackedRange {
    uint64_t size = 0;
    bool endsAtFree = false;
  };
  void onUntrackedReserve(uint64_t base, uint64_t size, bool endsAtFree = false);
  // The range that holds `address` ends.
  void onUntrackedRelease(uint64_t address);
  // The range that holds `address` (possibly tagged), or nullptr.
  const UntrackedRange* untrackedAt(uint64_t address) const;

  // The allocation an untagged address falls in (live, or freed and not yet reused).
  const Allocation* find(uint64_t address) const;
  // The allocation (live, or freed and not yet reused) that carries `tag` and holds the untagged
  // `address` or lies within `slack` bytes of it, below or above: where a library's host code
  // computes a pointer a little outside an array (one-based indexing: `values - 1`).
  const Allocation* findNear(uint64_t address, uint8_t tag, uint64_t slack) const;
  // (A scan, as findChecked's of the replaced ones: for tests and reports, not for every
  // allocation.)
  const Allocation* byId(uint64_t id) const;
  // How many allocations byId can still find: the live ones, the freed ones at each base, and
  // the replaced ones kept (bounded, however many allocations the program made).
  size_t allocationsKept() const { return byBase_.size() + replaced_.size(); }
  // The allocation a device error record was checked against: the one at `base` of `size`
  // whose entry carried `tag` (the newest such, live or freed, replaced ones included).
  const Allocation* findChecked(uint64_t base, uint64_t size, uint8_t tag) const;
  std::vector<const Allocation*> live() const;

  // The BST as the device sees it, and the entries changed since the last takeDirty().
  const std::vector<abi::BstEntry>& bst() const { return bst_; }
  std::vector<uint32_t> takeDirtyEntries();
  // Whether anything changed since the last takeDirtyEntries() and takeWrites().
  bool hasChanges() const { return !dirtyEntries_.empty() || shadow_.hasWrites(); }
  ShadowMap& shadow() { return shadow_; }
  const ShadowMap& shadow() const { return shadow_; }

  // Exactly what READMETADATA computes on the device for `pointer` (the verdict included):
  // the cross-check between this mirror and the emitted PTX.
  struct DeviceView {
    uint32_t index;
    abi::BstEntry entry;
    uint32_t verdict;  // 0 or abi::kMetaVerdictBad (entry.state says which: freed or a stale tag)
  };
  DeviceView deviceView(uint64_t pointer) const;
  // What a launch twin is given for `pointer` (LaunchMetadata.h): deviceView, or nothing
  // (the kernel itself runs, and its threads read the device's tables when they run) where the
  // host's view at the launch may not be the device's then:
  // - an allocation made or freed in a capture: its state on the device is the graphs' doing, not
  //   the host's (a launch of the graph that made it makes it live again after the program freed
  //   it outside; a graph that frees it frees it when it runs, not when it was captured);
  // - a pointer the host holds freed or stale (the bad verdict): a stream-ordered free the host
  //   was asked for before the launch may be ordered after the kernel on the device by a wait
  //   there (cuStreamWaitValue32 on a flag the kernel's stream sets later, an external semaphore,
  //   a host function), so a correct kernel may still use the memory (a review's find). A live
  //   pointer's view is the device's wherever the program is correct: a free ordered before the
  //   kernel was asked for before it.
  std::optional<DeviceView> launchView(uint64_t pointer) const;

 private:
  uint32_t takeIndex(bool direct, bool freshOnly = false);
  // The quarantine a freed `index` waits in (direct or indirect).
  std::deque<uint32_t>& quarantineOf(uint32_t index);
  // Whether a free of `a` unmaps it (host memory, where devices read pageable memory).
  bool unmappedWhenFreed(const Allocation& a) const;
  void setEntry(uint32_t index, const abi::BstEntry& e);

  MetadataConfig config_;
  std::vector<abi::BstEntry> bst_;
  std::vector<uint32_t> dirtyEntries_;
  ShadowMap shadow_;
  std::map<uint64_t, Allocation> byBase_;                  // untagged base -> newest allocation there
  // Freed ones a newer allocation at their base replaced: a ring of the latest (bounded), the
  // oldest overwritten at replacedNext_ once it is full. Read only for reports, by a scan; every
  // allocation at a reused address writes one slot (a tree keyed by base, with an index by ID,
  // cost a fifth of a stream-ordered allocation and free's host time, H200). Its capacity is
  // reserved once, so a slot never moves (nothing clears or copies it).
  std::vector<Allocation> replaced_;
  size_t replacedNext_ = 0;
  // The untracked range that holds the untagged `address`, or untracked_.end().
  std::map<uint64_t, UntrackedRange>::const_iterator untrackedRangeAt(uint64_t address) const;
  // Ends every untracked range that overlaps [base, base + size).
  void endUntrackedOverlapping(uint64_t base, uint64_t size);
  std::map<uint64_t, UntrackedRange> untracked_;           // by base (onUntrackedReserve)
  std::vector<uint32_t> freeDirect_, freeIndirect_;        // never-used indices
  std::vector<bool> replayedIndex_;                        // by index: an Allocation::replayed one's
  std::deque<uint32_t> quarantineDirect_, quarantineIndirect_;  // freed, reused oldest first
  // The indirect index of the freed, untagged allocation of `size` and `kind` at `base`, taken
  // out of quarantine (onAllocate's `inFreedOrder`); 0 where there is none.
  uint32_t takeBackIndex(uint64_t base, uint64_t size, MemoryKind kind);
  size_t indirectQuarantine_ = 0;  // freed indirect indices kept before one is reused
  size_t capturedReserve_ = 0;     // fresh indirect indices kept for allocations made in a capture
  bool pageableAccess_ = false;  // allowPageableAccess
  bool orderedExtentsAligned_ = true;  // every stream-ordered base so far on config_.extentAlign
  std::mt19937_64 rng_;
  uint64_t nextId_ = 1;
};

}  // namespace cucatch::runtime
