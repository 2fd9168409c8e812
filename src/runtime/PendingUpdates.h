// Stream-ordered table updates the runtime has taken from the metadata but not yet enqueued
// (docs/design.md, "Device tables"). A cudaMallocAsync or cudaFreeAsync changes the tables at
// its point of its stream; the runtime enqueues those changes into that stream only at the next
// driver call that could order a kernel after them (a launch, a synchronization, an event record,
// a stream wait, any other call it wraps but the allocations and frees themselves and pure
// queries), since until then nothing the program enqueued can read them. So an allocation freed
// again before any such call was never seen by a kernel: its mapping need not reach the device
// at all, and the pair costs no enqueue (each costs about as much as the pair itself).
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/Metadata.h"

namespace cucatch::runtime {

class PendingUpdates {
 public:
  // The table changes of one stream-ordered allocation or free, as taken from the metadata.
  struct Change {
    uint64_t context = 0;  // the context ID of `stream`
    CUstream stream = nullptr;
    uint32_t mapped = 0;  // an allocation's BST index (its writes of that value map it); 0 for a free
    std::vector<uint32_t> entries;
    std::vector<ShadowMap::Write> writes;
    // (Set by add: whether the allocation that held `mapped` before may have been seen by a kernel.)
    bool previousSeen = true;
  };
  void add(Change change);

  // The allocation with direct index `index` reached the device, or will before any kernel can
  // run (an ordinary allocation, one not kept pending): a kernel may hold a pointer tagged with
  // `index` that means it, until the index is given out again and after. (Changes that take()
  // hands out count as such too.)
  void markSeen(uint32_t index);
  // Every kernel launched so far has finished (a context synchronized): none holds a pointer
  // that means an index's earlier holder, so the next holder of any index may be written
  // anywhere when it is cancelled.
  void forgetSeen() { seen_.fill(false); }

  // Whether the change of the allocation with BST index `index` (not 0) is still pending with
  // writes that map it. Its mapping must not reach the device after the real free is enqueued:
  // the pool may then hand the memory to another stream, whose mapping of it would race with
  // this one. (An allocation that took back its predecessor's index maps nothing anew:
  // Metadata::onAllocate's `inFreedOrder`.)
  bool maps(uint32_t index) const;
  // The allocation with BST index `index` is freed while its change is pending, so no kernel can
  // have read it: its writes that map it are dropped, and its other writes (the old range of a
  // reused index unmapped) stay pending in its stream's order. Only for an allocation whose
  // pointers carry its index as their tag: they find its entry, freed, without the mapping.
  enum class Cancelled {
    NotPending,  // (nothing changed: a kernel may have seen it)
    // The entries it changed are appended to `entries`: the caller writes them, with the free's,
    // where no stream order is needed, since no kernel can hold a pointer tagged with the index
    // (the allocation that held it before was seen by none either, or there was none).
    Anywhere,
    // They stay pending in its stream, and the free's go there too: a kernel still running ahead
    // in the stream may use the index's previous allocation, and must find that one's entry.
    InStream,
  };
  Cancelled cancel(uint32_t index, std::vector<uint32_t>& entries);

  // What is pending, one update per stream in the order their first changes came, and nothing
  // pending after: its entries (sorted, once each) and its writes in the order taken.
  struct StreamUpdate {
    uint64_t context = 0;
    CUstream stream = nullptr;
    std::vector<uint32_t> entries;
    std::vector<ShadowMap::Write> writes;
  };
  std::vector<StreamUpdate> take();

  bool empty() const { return changes_.empty(); }
  size_t size() const { return changes_.size(); }

 private:
  std::vector<Change> changes_;  // in the order made
  std::array<bool, 256> seen_{};  // by direct index (markSeen)
};

}  // namespace cucatch::runtime
