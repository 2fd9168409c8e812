#include "runtime/DeviceTables.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "runtime/Report.h"

namespace cucatch::runtime {

namespace {
constexpr size_t kL2Bytes = (size_t(1) << abi::kShadowL2Bits) * sizeof(uint32_t);
constexpr size_t kL1Entries = size_t(1) << abi::kShadowL1Bits;
// 8192 BST entries a lap: the host waits for cucatch's stream once per that many changes.
constexpr size_t kStagingBytes = 256 * 1024;
}  // namespace

CUresult Driver::check(CUresult r, const char* what) const {
  if (r != CUDA_SUCCESS) writeStderr(fmt::format("cucatch: warning: {} failed ({})\n", what, errorName(r)));
  return r;
}

std::string Driver::errorName(CUresult r) const {
  const char* name = nullptr;
  return cuGetErrorName && cuGetErrorName(r, &name) == CUDA_SUCCESS && name ? name : fmt::format("error {}", int(r));
}

ContextScope::ContextScope(const Driver& d, CUcontext context) : d_(d) {
  CUcontext current = nullptr;
  if (d_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context) return;
  pushed_ = d_.check(d_.cuCtxPushCurrent(context), "making a context current") == CUDA_SUCCESS;
}

ContextScope::~ContextScope() {
  CUcontext popped = nullptr;
  if (pushed_) d_.cuCtxPopCurrent(&popped);
}

std::unique_ptr<DeviceTables> DeviceTables::create(const Driver& d, CUcontext context, uint64_t contextId,
                                                   CUdevice device, bool primary, const Metadata& metadata,
                                                   uint32_t maxErrors) {
  std::unique_ptr<DeviceTables> t(new DeviceTables(d));
  t->context_ = context;
  t->contextId_ = contextId;
  t->device_ = device;
  t->primary_ = primary;
  bool ok = true;
  auto step = [&](CUresult r, const char* what) { ok = ok && d.check(r, what) == CUDA_SUCCESS; };
  step(d.cuStreamCreate(&t->stream_, CU_STREAM_NON_BLOCKING), "creating cucatch's stream");
  if (ok) step(d.cuEventCreate(&t->updated_, CU_EVENT_DISABLE_TIMING), "creating cucatch's update event");
  if (ok) {
    void* staging = nullptr;
    step(d.cuMemHostAlloc(&staging, kStagingBytes, 0), "allocating cucatch's staging memory");
    t->staging_ = static_cast<unsigned char*>(staging);
    t->stagingBytes_ = kStagingBytes;
  }
  t->published_ = metadata.bst();
  t->bstCapacity_ = static_cast<uint32_t>(metadata.bst().size());
  size_t bstBytes = metadata.bst().size() * sizeof(abi::BstEntry);
  if (ok) step(d.cuMemAlloc(&t->bst_, bstBytes), "allocating the base & size table");
  if (ok) step(d.cuMemAlloc(&t->zeroTable_, kL2Bytes), "allocating the shadow map");
  if (ok) step(d.cuMemAlloc(&t->l1_, kL1Entries * sizeof(uint64_t)), "allocating the shadow map");
  if (ok) {
    // The whole table goes up now (pageable source: staged when the call returns).
    step(d.cuMemcpyHtoDAsync(t->bst_, metadata.bst().data(), bstBytes, t->stream_), "uploading the base & size table");
    step(d.cuMemsetD32Async(t->zeroTable_, 0, kL2Bytes / 4, t->stream_), "clearing the shadow map");
    // Every first-level slot points at the shared all-zero second level.
    step(d.cuMemsetD2D32Async(t->l1_, 8, static_cast<uint32_t>(t->zeroTable_), 1, kL1Entries, t->stream_),
         "filling the shadow map");
    step(d.cuMemsetD2D32Async(t->l1_ + 4, 8, static_cast<uint32_t>(t->zeroTable_ >> 32), 1, kL1Entries, t->stream_),
         "filling the shadow map");
  }
  // What other contexts' allocations mapped before this context appeared.
  for (uint64_t slot : metadata.shadow().slots()) {
    if (!ok) break;
    CUdeviceptr table = t->secondLevelTable(slot);
    // (A pageable source: staged by the time the call returns.)
    std::vector<uint32_t> host = metadata.shadow().table(slot);
    if (!table) ok = false;
    else step(d.cuMemcpyHtoDAsync(table, host.data(), kL2Bytes, t->stream_), "uploading the shadow map");
  }
  if (ok) {
    t->heapLogOffset_ = abi::kErrorHeaderBytes + size_t(maxErrors) * abi::kErrorRecordBytes;
    t->errorBytes_ = (t->heapLogOffset_ + abi::kHeapLogBytes + 4095) & ~size_t(4095);
    t->errorHost_ = static_cast<unsigned char*>(std::aligned_alloc(4096, t->errorBytes_));
    std::memset(t->errorHost_, 0, t->errorBytes_);
    reinterpret_cast<abi::ErrorBufferHeader*>(t->errorHost_)->capacity = maxErrors;
    step(d.cuMemHostRegister(t->errorHost_, t->errorBytes_, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE),
         "registering the error buffer");
    if (ok) step(d.cuMemHostGetDevicePointer(&t->errorDevice_, t->errorHost_, 0), "mapping the error buffer");
  }
  if (ok) step(d.cuStreamSynchronize(t->stream_), "setting up the device tables");
  // On failure the device memory stays with the context (freeing it through the wrappers
  // would be seen as the program's); the host buffer is never freed, it may be registered.
  return ok ? std::move(t) : nullptr;
}

CUdeviceptr DeviceTables::secondLevelTable(uint64_t slot) {
  auto it = l2_.find(slot);
  if (it != l2_.end()) return it->second;
  CUdeviceptr t = 0;
  if (d_.check(d_.cuMemAlloc(&t, kL2Bytes), "allocating a shadow table") != CUDA_SUCCESS) return 0;
  d_.check(d_.cuMemsetD32Async(t, 0, kL2Bytes / 4, stream_), "clearing a shadow table");
  CUdeviceptr entry = l1_ + slot * sizeof(uint64_t);
  d_.check(d_.cuMemsetD32Async(entry, static_cast<uint32_t>(t), 1, stream_), "linking a shadow table");
  d_.check(d_.cuMemsetD32Async(entry + 4, static_cast<uint32_t>(t >> 32), 1, stream_), "linking a shadow table");
  d_.check(d_.cuStreamSynchronize(stream_), "linking a shadow table");
  l2_[slot] = t;
  return t;
}

void DeviceTables::apply(const Metadata& metadata, const std::vector<uint32_t>& entries,
                         const std::vector<ShadowMap::Write>& writes, Order order) {
  // Made (and waited for) before cucatch's streams may be held up behind an event.
  std::vector<CUdeviceptr> tables;
  for (const auto& w : writes) tables.push_back(secondLevelTable(w.l1Slot));
  CUstream target = order.kind == Order::InStream ? order.stream : stream_;
  if (order.kind == Order::AfterEvent) {
    // On a stream of its own: the launches that wait for stream_'s event must not be held up
    // behind the program's stream.
    if (!afterEventStream_)
      d_.check(d_.cuStreamCreate(&afterEventStream_, CU_STREAM_NON_BLOCKING), "creating cucatch's ordered stream");
    if (afterEventStream_ &&
        d_.check(d_.cuStreamWaitEvent(afterEventStream_, order.event, 0), "ordering a table update") == CUDA_SUCCESS)
      target = afterEventStream_;
    else
      order.kind = Order::Deferred;  // then before the next launch
  }
  if (order.kind == Order::Deferred) {
    for (size_t i = 0; i < writes.size(); ++i)
      if (tables[i])
        d_.check(d_.cuMemsetD32Async(tables[i] + uint64_t(writes[i].first) * 4, writes[i].value, writes[i].count, target),
                 "updating the shadow map");
    copyEntries(metadata, entries);
  } else {
    // Ordered changes take their values now (a captured stream replays them as they are), and
    // no staging memory has to outlive a program's stream: a memset per long shadow run, and
    // every other word that changes (a few shadow granules, the BST words) written by one
    // batch of stream memory operations. (One call: an enqueue costs microseconds, and a
    // stream-ordered allocation changes six words of its entry.)
    // In the order taken: a later write may cover an earlier one (a freed allocation's granules
    // unmapped, then mapped to the allocation that reuses its address and its index), so the
    // words collected so far go out before each memset.
    std::vector<std::pair<CUdeviceptr, uint32_t>> words;
    for (size_t i = 0; i < writes.size(); ++i) {
      const auto& w = writes[i];
      if (!tables[i]) continue;
      CUdeviceptr at = tables[i] + uint64_t(w.first) * 4;
      if (w.count <= kShortRun) {
        for (uint32_t k = 0; k < w.count; ++k) words.emplace_back(at + 4 * k, w.value);
        continue;
      }
      writeWords(words, target);
      words.clear();
      d_.check(d_.cuMemsetD32Async(at, w.value, w.count, target), "updating the shadow map");
    }
    for (uint32_t index : entries) {
      const abi::BstEntry& e = metadata.bst()[index];
      uint32_t now[kWords], before[kWords];
      std::memcpy(now, &e, sizeof now);
      std::memcpy(before, &published_[index], sizeof before);
      CUdeviceptr at = bst_ + uint64_t(index) * sizeof(abi::BstEntry);
      for (unsigned k = 0; k < kWords; ++k)
        if (now[k] != before[k]) words.emplace_back(at + 4 * k, now[k]);
      published_[index] = e;
    }
    writeWords(words, target);
  }
  if (order.kind == Order::Deferred &&
      d_.check(d_.cuEventRecord(updated_, stream_), "recording a table update") == CUDA_SUCCESS)
    updatesInFlight_ = true;
  else if (order.kind == Order::Deferred)
    d_.check(d_.cuStreamSynchronize(stream_), "updating the device tables");  // no event: the host waits
}

void DeviceTables::writeWords(const std::vector<std::pair<CUdeviceptr, uint32_t>>& words, CUstream stream) {
  size_t done = 0;
  if (batchMemOps_) {
    std::vector<CUstreamBatchMemOpParams> ops;
    for (; done < words.size(); done += ops.size()) {
      ops.clear();
      for (size_t k = done; k < words.size() && ops.size() < kMaxBatch; ++k) {
        CUstreamBatchMemOpParams op{};
        op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
        op.writeValue.address = words[k].first;
        op.writeValue.value = words[k].second;
        op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
        ops.push_back(op);
      }
      CUresult r = d_.cuStreamBatchMemOp(stream, static_cast<unsigned>(ops.size()), ops.data(), 0);
      if (r != CUDA_SUCCESS) {
        // The same words by memsets, from this batch on: for good where the device or driver has
        // no stream memory operations, else with a warning.
        if (r == CUDA_ERROR_NOT_SUPPORTED) batchMemOps_ = false;
        else d_.check(r, "updating cucatch's tables in one batch (written one by one instead)");
        break;
      }
    }
  }
  for (; done < words.size(); ++done)
    d_.check(d_.cuMemsetD32Async(words[done].first, words[done].second, 1, stream), "updating cucatch's tables");
}

void DeviceTables::copyEntries(const Metadata& metadata, const std::vector<uint32_t>& entries) {
  // Runs of consecutive indices, one copy each, from a snapshot in the staging ring.
  for (size_t i = 0; i < entries.size();) {
    size_t j = i + 1;
    while (j < entries.size() && entries[j] == entries[j - 1] + 1) ++j;
    const uint32_t first = entries[i];
    size_t bytes = (j - i) * sizeof(abi::BstEntry);
    if (bytes > stagingBytes_) {
      j = i + stagingBytes_ / sizeof(abi::BstEntry);
      bytes = stagingBytes_;
    }
    if (stagingUsed_ + bytes > stagingBytes_) {
      // A new lap: every copy reading the ring is on stream_ (this call's too).
      d_.check(d_.cuStreamSynchronize(stream_), "reusing cucatch's staging memory");
      stagingUsed_ = 0;
    }
    unsigned char* snapshot = staging_ + stagingUsed_;
    std::memcpy(snapshot, &metadata.bst()[first], bytes);
    std::memcpy(&published_[first], snapshot, bytes);
    stagingUsed_ += bytes;
    d_.check(d_.cuMemcpyHtoDAsync(bst_ + uint64_t(first) * sizeof(abi::BstEntry), snapshot, bytes, stream_),
             "updating the base & size table");
    i = j;
  }
}

void DeviceTables::orderAfterUpdates(CUstream stream) {
  if (!updatesInFlight_) return;
  CUresult done = d_.cuEventQuery(updated_);
  if (done != CUDA_ERROR_NOT_READY) {
    updatesInFlight_ = false;  // finished, or the context failed and runs nothing more
    return;
  }
  // 0 is the legacy default stream, or (from a _ptsz entry point) the thread's per-thread
  // default stream, which is a blocking stream: its work waits for the legacy stream's anyway.
  CUstream target = stream ? stream : CU_STREAM_LEGACY;
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult asked = d_.cuStreamIsCapturing(target, &capturing);
  if (asked == CUDA_SUCCESS && capturing != CU_STREAM_CAPTURE_STATUS_NONE) return;
  // Where the stream cannot be asked or made to wait, the host waits.
  if (asked != CUDA_SUCCESS || d_.cuStreamWaitEvent(target, updated_, 0) != CUDA_SUCCESS) finishUpdates();
}

void DeviceTables::finishUpdates() {
  if (updatesInFlight_) d_.check(d_.cuEventSynchronize(updated_), "waiting for cucatch's table updates");
  updatesInFlight_ = false;
}

abi::ModuleState DeviceTables::moduleState(uint32_t flags) const {
  abi::ModuleState s{};
  s.bst = bst_;
  s.bstCapacity = bstCapacity_;
  s.shadowL1 = l1_;
  s.errorBuffer = errorDevice_;
  s.flags = flags;
  s.heapLog = errorDevice_ ? errorDevice_ + heapLogOffset_ : 0;
  return s;
}

abi::HeapEvent DeviceTables::heapEvent(uint8_t tag, bool freed) const {
  abi::HeapEvent e{};
  if (!errorHost_ || !isDeviceHeapTag(tag)) return e;
  size_t at = heapLogOffset_ + (size_t(tag - abi::kFirstHeapTag) / 2 * 2 + (freed ? 1 : 0)) * abi::kHeapEventBytes;
  // (Written by the device into host memory: read through a volatile pointer, word by word.)
  const volatile uint32_t* words = reinterpret_cast<const volatile uint32_t*>(errorHost_ + at);
  uint32_t copy[abi::kHeapEventBytes / 4];
  for (unsigned i = 0; i < abi::kHeapEventBytes / 4; ++i) copy[i] = words[i];
  std::memcpy(&e, copy, sizeof e);
  return e;
}

std::vector<abi::ErrorRecord> DeviceTables::takeRecords(uint32_t& overflow) {
  auto* header = reinterpret_cast<volatile abi::ErrorBufferHeader*>(errorHost_);
  uint32_t count = header->count;
  uint32_t capacity = header->capacity;
  uint32_t recorded = std::min(count, capacity);
  std::vector<abi::ErrorRecord> records;
  for (uint32_t i = drained_; i < recorded; ++i) {
    abi::ErrorRecord r;
    std::memcpy(&r, errorHost_ + abi::kErrorHeaderBytes + size_t(i) * abi::kErrorRecordBytes, sizeof r);
    records.push_back(r);
  }
  overflow = count > capacity ? count - capacity : 0;
  drained_ = recorded;
  return records;
}

}  // namespace cucatch::runtime
