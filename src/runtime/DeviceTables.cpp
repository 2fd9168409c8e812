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
}  // namespace

CUresult Driver::check(CUresult r, const char* what) const {
  if (r != CUDA_SUCCESS) {
    const char* name = "?";
    if (cuGetErrorName) cuGetErrorName(r, &name);
    writeStderr(fmt::format("cucatch: warning: {} failed ({})\n", what, name));
  }
  return r;
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
    const std::vector<uint32_t>* host = metadata.shadow().table(slot);
    if (!table || !host) ok = false;
    else step(d.cuMemcpyHtoDAsync(table, host->data(), kL2Bytes, t->stream_), "uploading the shadow map");
  }
  if (ok) {
    t->errorBytes_ = abi::kErrorHeaderBytes + size_t(maxErrors) * abi::kErrorRecordBytes;
    t->errorBytes_ = (t->errorBytes_ + 4095) & ~size_t(4095);
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
  // Made (and waited for) before cucatch's stream may be held up behind an event.
  std::vector<CUdeviceptr> tables;
  for (const auto& w : writes) tables.push_back(secondLevelTable(w.l1Slot));
  bool ordered = order.kind != Order::Now;
  CUstream target = order.kind == Order::InStream ? order.stream : stream_;
  if (order.kind == Order::AfterEvent) {
    // On a stream of its own, which the host never waits for: cucatch's stream, which it does
    // wait for, must not be held up behind the program's stream.
    if (!afterEventStream_)
      d_.check(d_.cuStreamCreate(&afterEventStream_, CU_STREAM_NON_BLOCKING), "creating cucatch's ordered stream");
    if (afterEventStream_ &&
        d_.check(d_.cuStreamWaitEvent(afterEventStream_, order.event, 0), "ordering a table update") == CUDA_SUCCESS)
      target = afterEventStream_;
    else
      ordered = false;  // then at once: the host waits below
  }
  // Ordered changes are memsets (no staging memory whose lifetime would have to follow the
  // stream); the others copy from the host mirror and wait.
  for (size_t i = 0; i < writes.size(); ++i) {
    const auto& w = writes[i];
    if (tables[i])
      d_.check(d_.cuMemsetD32Async(tables[i] + uint64_t(w.first) * 4, w.value, w.count, target), "updating the shadow map");
  }
  for (uint32_t index : entries) {
    const abi::BstEntry& e = metadata.bst()[index];
    CUdeviceptr at = bst_ + uint64_t(index) * sizeof(abi::BstEntry);
    if (ordered) {
      uint32_t words[sizeof(abi::BstEntry) / 4];
      std::memcpy(words, &e, sizeof words);
      for (unsigned k = 0; k < std::size(words); ++k)
        d_.check(d_.cuMemsetD32Async(at + 4 * k, words[k], 1, target), "updating the base & size table");
    } else {
      d_.check(d_.cuMemcpyHtoDAsync(at, &e, sizeof e, target), "updating the base & size table");
    }
  }
  if (!ordered) d_.check(d_.cuStreamSynchronize(stream_), "updating the device tables");
}

abi::ModuleState DeviceTables::moduleState(uint32_t flags) const {
  abi::ModuleState s{};
  s.bst = bst_;
  s.bstCapacity = bstCapacity_;
  s.shadowL1 = l1_;
  s.errorBuffer = errorDevice_;
  s.flags = flags;
  return s;
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
