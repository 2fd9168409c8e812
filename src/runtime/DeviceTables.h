// The metadata as one CUDA context sees it: the base & size table, the shadow map
// and the error buffer of cucatch_abi.h in that context's memory, and the stream cucatch
// updates them on. The runtime keeps one per context the program allocates or launches in.
// Every context holds every allocation (a kernel may reach a peer device's memory, and
// addresses are unique across devices), while each has its own error buffer: device atomics on
// one host counter from several GPUs are not atomic with each other.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/Driver.h"
#include "runtime/Metadata.h"

namespace cucatch::runtime {

class DeviceTables {
 public:
  // Makes the tables in `context` (current), holding what `metadata` holds now: a context that
  // appears after allocations were made elsewhere starts with them. nullptr (warned) when the
  // driver refuses.
  static std::unique_ptr<DeviceTables> create(const Driver& d, CUcontext context, uint64_t contextId, CUdevice device,
                                              bool primary, const Metadata& metadata, uint32_t maxErrors);
  ~DeviceTables() = default;

  // How a change reaches this context's tables.
  struct Order {
    enum Kind { Deferred, InStream, AfterEvent } kind = Deferred;
    CUstream stream = nullptr;  // InStream: the program's stream (of this context; 0 is the legacy one)
    CUevent event = nullptr;    // AfterEvent: recorded at that point of a stream (any context)
  };
  // Brings the device copy up to date with the BST entries `entries` and the shadow writes
  // `writes` (taken once from `metadata`, applied to every context). Deferred: enqueued on
  // cucatch's stream, and the next launch in this context waits for it (orderAfterUpdates), never
  // the host; InStream: enqueued in the program's stream; AfterEvent: enqueued on a second
  // cucatch stream, which waits for the event and which the host never waits for. A page whose
  // device form cannot take the writes (one value throughout until now, or a table too coarse)
  // gets a new table first, holding what the page held before them, on cucatch's stream and
  // waited for. InStream and AfterEvent updates write no page entry into the program's order: a
  // page of one value they map gets a table, one they leave unmapped its entry on cucatch's
  // stream at once. This context must be current.
  void apply(const Metadata& metadata, const std::vector<uint32_t>& entries,
             const std::vector<ShadowMap::Write>& writes, Order order);
  // Device memory the shadow map holds in this context (root, directories, page tables).
  size_t shadowBytes() const { return shadowBytes_; }
  // Orders work the program enqueues next in `stream` (a launch, a stream-ordered update) after every Deferred update
  // so far, without blocking the host: nothing once the updates are known to have finished, a
  // wait on cucatch's event otherwise. A stream being captured is left alone (its graph waits
  // when it is launched: orderAfterUpdates on the launch's stream). The thread's capture mode
  // must be relaxed.
  void orderAfterUpdates(CUstream stream);
  // Whether a Deferred update may still be in flight (orderAfterUpdates has something to do).
  bool updatesInFlight() const { return updatesInFlight_; }
  // Blocks the host until every update so far reached this context's tables.
  void finishUpdates();

  // The runtime state an instrumented module of this context reads (__cucatch_state).
  abi::ModuleState moduleState(uint32_t flags) const;

  // The error records written since the last call, and how many the buffer could not hold
  // so far (its counter runs past its capacity).
  std::vector<abi::ErrorRecord> takeRecords(uint32_t& overflow);
  // The device heap's log (abi::HeapEvent): the malloc (or, `freed`, the free) of the block
  // that entry `tag` (a device-heap tag) was last given to; unit 0 where none was logged.
  abi::HeapEvent heapEvent(uint8_t tag, bool freed) const;

  CUcontext context() const { return context_; }
  uint64_t contextId() const { return contextId_; }
  CUstream stream() const { return stream_; }
  CUdevice device() const { return device_; }
  bool primary() const { return primary_; }  // the device's primary context (the CUDA runtime's)

 private:
  explicit DeviceTables(const Driver& d) : d_(d) {}
  // One 32- or 64-bit word an ordered update writes.
  struct Word {
    CUdeviceptr at;
    uint64_t value;
    bool wide;
  };
  // The directory of root slot `slot`, made (every page unmapped) and linked on first use; 0
  // when the allocation failed.
  CUdeviceptr directory(uint64_t slot);
  // The device address of `page`'s entry in its directory (0: none could be made).
  CUdeviceptr pageEntry(uint64_t page);
  // Sets `count` 64-bit words from `at` to `value`, on stream_ (no 64-bit memset exists).
  CUresult fill64(CUdeviceptr at, uint64_t value, size_t count);
  // A page entry for a page that holds `value` throughout: a granule of the whole page, whose
  // table is word `value` of identity_.
  uint64_t uniformEntry(uint32_t value) const;
  // Gives each (page, shift) a table of granules of 2^shift bytes holding what publishedShadow_
  // holds, and links it, on stream_, waited for; which were made (not where the driver refused).
  std::vector<bool> makeLeaves(const std::vector<std::pair<uint64_t, unsigned>>& pages);
  // Device memory for the shadow map's tables into `at`; false where the driver has none (the
  // device is full: said once, as a note) or refuses (a warning).
  bool tableMemory(CUdeviceptr& at, size_t bytes, const char* what);
  bool outOfMemorySaid_ = false;
  // Pages whose updates could not be made for want of device memory: entry 0 (unknown) from
  // then on, for good (apply).
  std::unordered_set<uint64_t> unknown_;
  // Deferred BST updates: copies from the staging ring on stream_.
  void copyEntries(const Metadata& metadata, const std::vector<uint32_t>& entries);
  // The 32- and 64-bit words (address, value) written in `stream`'s order, in one batch of
  // stream memory operations where the driver has them.
  void writeWords(const std::vector<Word>& words, CUstream stream);
  static constexpr unsigned kWords = sizeof(abi::BstEntry) / 4;
  // Shadow runs up to this long go into the batch word by word, longer ones are memsets.
  static constexpr uint32_t kShortRun = 4;
  static constexpr size_t kMaxBatch = 255;  // operations per cuStreamBatchMemOp ("less than 256")
  bool batchMemOps_ = true;

  const Driver& d_;
  CUcontext context_ = nullptr;
  uint64_t contextId_ = 0;
  CUdevice device_ = -1;
  bool primary_ = false;
  CUstream stream_ = nullptr;
  CUstream afterEventStream_ = nullptr;  // made on the first AfterEvent change
  // Recorded on stream_ after every Deferred update; launches wait for it while in flight.
  CUevent updated_ = nullptr;
  bool updatesInFlight_ = false;
  // Pinned host memory the Deferred BST copies read from, used as a ring: a copy from
  // pageable memory could make the host wait for stream_. A lap waits for `updated_`.
  unsigned char* staging_ = nullptr;
  size_t stagingBytes_ = 0, stagingUsed_ = 0;
  // The BST as this context's device copy holds it once every update so far is applied: an
  // ordered update writes only the words that change (a free changes one).
  std::vector<abi::BstEntry> published_;
  CUdeviceptr bst_ = 0;
  uint32_t bstCapacity_ = 0;
  // The shadow map (cucatch_abi.h): the root, the directory every unused root slot points at,
  // identity_ (word i holds i: the table of every page that holds one value), the directories
  // made, and the pages with a table of their own (a page without one holds one value).
  CUdeviceptr root_ = 0, emptyDirectory_ = 0, identity_ = 0;
  std::unordered_map<uint64_t, CUdeviceptr> directories_;
  struct Leaf {
    CUdeviceptr table;
    unsigned shift;
  };
  std::unordered_map<uint64_t, Leaf> leaves_;
  // The shadow map as this context's device copy holds it once every update so far is applied:
  // what a new page table starts with. (A table replaced by a finer one is not freed: a kernel
  // may still be reading it. A page's table only ever gets finer, so they are few.)
  ShadowMap publishedShadow_;
  size_t shadowBytes_ = 0;
  // Host memory registered (not cuMemHostAlloc'ed) so that it outlives the context: a trap
  // ends the context, and the records must still be read.
  unsigned char* errorHost_ = nullptr;
  size_t errorBytes_ = 0;
  size_t heapLogOffset_ = 0;  // the device heap's log follows the records in the same buffer
  CUdeviceptr errorDevice_ = 0;
  uint32_t drained_ = 0;
};

}  // namespace cucatch::runtime
