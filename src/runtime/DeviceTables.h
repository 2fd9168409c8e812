// The metadata as one CUDA context sees it: the base & size table, the two-level shadow map
// and the error buffer of cucatch_abi.h in that context's memory, and the stream cucatch
// updates them on. The runtime keeps one per context the program allocates or launches in.
// Every context holds every allocation (a kernel may reach a peer device's memory, and
// addresses are unique across devices), while each has its own error buffer: device atomics on
// one host counter from several GPUs are not atomic with each other.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
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
    enum Kind { Now, InStream, AfterEvent } kind = Now;
    CUstream stream = nullptr;  // InStream: the program's stream (of this context; 0 is the legacy one)
    CUevent event = nullptr;    // AfterEvent: recorded at that point of a stream (any context)
  };
  // Brings the device copy up to date with the BST entries `entries` and the shadow writes
  // `writes` (taken once from `metadata`, applied to every context): Now on cucatch's stream,
  // the host waiting for it; InStream enqueued in the program's stream; AfterEvent enqueued on
  // a second cucatch stream, which waits for the event and which the host never waits for.
  // Second-level tables a write needs are made first, before anything waits. This context
  // must be current.
  void apply(const Metadata& metadata, const std::vector<uint32_t>& entries,
             const std::vector<ShadowMap::Write>& writes, Order order);

  // The runtime state an instrumented module of this context reads (__cucatch_state).
  abi::ModuleState moduleState(uint32_t flags) const;

  // The error records written since the last call, and how many the buffer could not hold
  // so far (its counter runs past its capacity).
  std::vector<abi::ErrorRecord> takeRecords(uint32_t& overflow);

  CUcontext context() const { return context_; }
  uint64_t contextId() const { return contextId_; }
  CUstream stream() const { return stream_; }
  CUdevice device() const { return device_; }
  bool primary() const { return primary_; }  // the device's primary context (the CUDA runtime's)

 private:
  explicit DeviceTables(const Driver& d) : d_(d) {}
  // The device second-level table of first-level slot `slot`, made (zeroed and linked) on
  // first use; 0 when the allocation failed.
  CUdeviceptr secondLevelTable(uint64_t slot);

  const Driver& d_;
  CUcontext context_ = nullptr;
  uint64_t contextId_ = 0;
  CUdevice device_ = -1;
  bool primary_ = false;
  CUstream stream_ = nullptr;
  CUstream afterEventStream_ = nullptr;  // made on the first AfterEvent change
  CUdeviceptr bst_ = 0, l1_ = 0, zeroTable_ = 0;
  uint32_t bstCapacity_ = 0;
  std::unordered_map<uint64_t, CUdeviceptr> l2_;
  // Host memory registered (not cuMemHostAlloc'ed) so that it outlives the context: a trap
  // ends the context, and the records must still be read.
  unsigned char* errorHost_ = nullptr;
  size_t errorBytes_ = 0;
  CUdeviceptr errorDevice_ = 0;
  uint32_t drained_ = 0;
};

}  // namespace cucatch::runtime
