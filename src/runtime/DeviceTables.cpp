#include "runtime/DeviceTables.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "runtime/Report.h"

namespace cucatch::runtime {

namespace {
constexpr size_t kRootBytes = (size_t(1) << abi::kShadowRootBits) * sizeof(uint64_t);
constexpr size_t kDirectoryEntries = size_t(1) << abi::kShadowDirBits;
constexpr size_t kDirectoryBytes = kDirectoryEntries * sizeof(uint64_t);
// A page's first table has granules no coarser than 512 bytes, the driver's allocation
// alignment (Metadata's extentAlign): more small allocations in the page then fit it, where a
// coarser one would be replaced at the next.
constexpr unsigned kCoarsestLeafShift = 9;
// 8192 BST entries a lap: the host waits for cucatch's stream once per that many changes.
constexpr size_t kStagingBytes = 256 * 1024;
}  // namespace

CUresult Driver::check(CUresult r, const char* what) const {
  // The driver was shut down: the process is exiting and the driver's own exit handler has run
  // (a library's destructor that frees memory after it, as PyTorch's caching allocator does, is
  // what reaches cucatch then). No kernel can run again, so nothing cucatch failed to do on the
  // device matters, and the program's own calls fail the same way.
  if (r == CUDA_ERROR_DEINITIALIZED) return r;
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
  size_t identityBytes = size_t(t->bstCapacity_) * sizeof(uint32_t);
  if (ok) step(d.cuMemAlloc(&t->bst_, bstBytes), "allocating the base & size table");
  if (ok) step(d.cuMemAlloc(&t->identity_, identityBytes), "allocating the shadow map");
  if (ok) step(d.cuMemAlloc(&t->emptyDirectory_, kDirectoryBytes), "allocating the shadow map");
  if (ok) step(d.cuMemAlloc(&t->root_, kRootBytes), "allocating the shadow map");
  std::vector<uint32_t> identity(t->bstCapacity_);
  for (uint32_t i = 0; i < t->bstCapacity_; ++i) identity[i] = i;
  if (ok) {
    t->shadowBytes_ = identityBytes + kDirectoryBytes + kRootBytes;
    // The whole table goes up now (pageable sources: staged when the call returns).
    step(d.cuMemcpyHtoDAsync(t->bst_, metadata.bst().data(), bstBytes, t->stream_), "uploading the base & size table");
    step(d.cuMemcpyHtoDAsync(t->identity_, identity.data(), identityBytes, t->stream_), "filling the shadow map");
    // Every page of the shared directory unmapped, every root slot that directory.
    step(t->fill64(t->emptyDirectory_, t->uniformEntry(0), kDirectoryEntries), "filling the shadow map");
    step(t->fill64(t->root_, t->emptyDirectory_, kRootBytes / sizeof(uint64_t)), "filling the shadow map");
  }
  // What other contexts' allocations mapped before this context appeared.
  t->publishedShadow_ = metadata.shadow();
  t->publishedShadow_.takeWrites();
  std::vector<std::pair<uint64_t, unsigned>> tables;
  for (uint64_t page : t->publishedShadow_.pages()) {
    if (!ok) break;
    unsigned need = t->publishedShadow_.granuleShift(page);
    if (need < abi::kShadowPageShift) {
      tables.emplace_back(page, std::min(need, kCoarsestLeafShift));
      continue;
    }
    CUdeviceptr entry = t->pageEntry(page);
    if (!entry) ok = false;
    else t->writeWords({{entry, t->uniformEntry(t->publishedShadow_.lookup(page << abi::kShadowPageShift)), true}}, t->stream_);
  }
  if (ok) {
    std::vector<bool> made = t->makeLeaves(tables);
    ok = std::find(made.begin(), made.end(), false) == made.end();
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

CUresult DeviceTables::fill64(CUdeviceptr at, uint64_t value, size_t count) {
  // Each half of every word: a 2D memset with a pitch of one word.
  CUresult r = d_.cuMemsetD2D32Async(at, 8, static_cast<uint32_t>(value), 1, count, stream_);
  return r != CUDA_SUCCESS ? r : d_.cuMemsetD2D32Async(at + 4, 8, static_cast<uint32_t>(value >> 32), 1, count, stream_);
}

uint64_t DeviceTables::uniformEntry(uint32_t value) const {
  return (uint64_t(abi::kShadowPageShift) << abi::kShadowEntryShiftBit) | (identity_ + uint64_t(value) * 4);
}

bool DeviceTables::tableMemory(CUdeviceptr& at, size_t bytes, const char* what) {
  CUresult r = d_.cuMemAlloc(&at, bytes);
  if (r == CUDA_SUCCESS) return true;
  if (r != CUDA_ERROR_OUT_OF_MEMORY) {
    d_.check(r, what);
    return false;
  }
  // The program holds the rest of the device's memory. What needed this table is left
  // unchecked (apply: the pages as unknown memory, for good), and said once: it happens again
  // at each allocation while the device stays full.
  if (!outOfMemorySaid_) {
    outOfMemorySaid_ = true;
    writeStderr(fmt::format("cucatch: note: device {} has no memory left for cucatch's shadow map ({} bytes asked for; "
                            "the program holds the rest): accesses through untagged pointers into the 2 MiB pages it "
                            "could not update run unchecked from now on (tagged pointers are checked as before)\n",
                            device_, bytes));
  }
  return false;
}

CUdeviceptr DeviceTables::directory(uint64_t slot) {
  auto it = directories_.find(slot);
  if (it != directories_.end()) return it->second;
  CUdeviceptr dir = 0;
  if (!tableMemory(dir, kDirectoryBytes, "allocating a shadow directory")) return 0;
  d_.check(fill64(dir, uniformEntry(0), kDirectoryEntries), "filling a shadow directory");
  writeWords({{root_ + slot * sizeof(uint64_t), dir, true}}, stream_);
  d_.check(d_.cuStreamSynchronize(stream_), "linking a shadow directory");
  shadowBytes_ += kDirectoryBytes;
  directories_[slot] = dir;
  return dir;
}

CUdeviceptr DeviceTables::pageEntry(uint64_t page) {
  CUdeviceptr dir = directory(page >> abi::kShadowDirBits);
  return dir ? dir + (page & (kDirectoryEntries - 1)) * sizeof(uint64_t) : 0;
}

std::vector<bool> DeviceTables::makeLeaves(const std::vector<std::pair<uint64_t, unsigned>>& pages) {
  std::vector<bool> made(pages.size(), false);
  if (pages.empty()) return made;
  // One allocation, one upload and one batch of links for them all, waited for once: a large
  // stream-ordered allocation makes a table for each of its pages.
  std::vector<CUdeviceptr> entries;
  std::vector<uint32_t> host;
  std::vector<size_t> offsets;
  for (const auto& [page, shift] : pages) {
    entries.push_back(pageEntry(page));
    offsets.push_back(host.size());
    std::vector<uint32_t> leaf = publishedShadow_.leaf(page, shift);
    host.insert(host.end(), leaf.begin(), leaf.end());
  }
  size_t bytes = host.size() * sizeof(uint32_t);
  CUdeviceptr block = 0;
  if (!tableMemory(block, bytes, "allocating shadow tables")) return made;
  // (A pageable source: staged by the time the call returns.)
  d_.check(d_.cuMemcpyHtoDAsync(block, host.data(), bytes, stream_), "filling shadow tables");
  std::vector<Word> links;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (!entries[i]) continue;
    CUdeviceptr table = block + offsets[i] * sizeof(uint32_t);
    links.push_back({entries[i], (uint64_t(pages[i].second) << abi::kShadowEntryShiftBit) | table, true});
    leaves_[pages[i].first] = Leaf{table, pages[i].second};
    made[i] = true;
  }
  writeWords(links, stream_);
  // Waited for: the writes that follow may go into a program's stream.
  d_.check(d_.cuStreamSynchronize(stream_), "linking shadow tables");
  shadowBytes_ += bytes;
  return made;
}

void DeviceTables::apply(const Metadata& metadata, const std::vector<uint32_t>& entries,
                         const std::vector<ShadowMap::Write>& writes, Order order) {
  // The pages written, each in the form its contents before and after these writes need: a
  // table fine enough for both, or (holding one value before and after) its entry alone. Made
  // (and waited for) before cucatch's streams may be held up behind an event.
  // A table whose granule the writes' ends all fall on takes them as it is (its contents were
  // exact at that granule, and the writes add no other change of value), which spares reading
  // the page's runs, many where small allocations lie, at every allocation.
  std::vector<uint64_t> pages;
  std::unordered_map<uint64_t, unsigned> aligned;  // page -> the coarsest granule its writes' ends fall on
  for (const auto& w : writes) {
    auto at = [](uint32_t granule) {
      return granule % ShadowMap::kPageGranules == 0 ? ShadowMap::kPageGranuleBits
                                                     : static_cast<unsigned>(std::countr_zero(granule));
    };
    unsigned shift = abi::kShadowGranuleShift + std::min(at(w.first), at(w.first + w.count));
    auto [it, fresh] = aligned.emplace(w.page, shift);
    if (fresh) pages.push_back(w.page);
    else it->second = std::min(it->second, shift);
  }
  // An ordered update writes table words only, never a page entry into a program's stream: its
  // writes may run long after this call, and a page entry written then would undo a table linked
  // meanwhile (on cucatch's stream, at once), sending the writes that follow into a table no
  // entry points at. So a page of one value that an ordered update maps gets a table first; one
  // it leaves unmapped (the old range of an entry handed out again) gets its entry on cucatch's
  // stream at once instead (an unmapping seen early only spares a stale pointer its check).
  bool ordered = order.kind != Order::Deferred;
  std::unordered_map<uint64_t, bool> usable;  // page -> its device form takes the writes
  std::vector<std::pair<uint64_t, unsigned>> fresh;  // pages that get a new table, and its granule
  for (uint64_t page : pages) {
    auto leaf = leaves_.find(page);
    usable[page] = !unknown_.count(page);
    if (!usable[page]) continue;  // (unknown for good: below)
    if (leaf != leaves_.end() && leaf->second.shift <= aligned[page]) continue;  // as it is
    unsigned need = std::min(metadata.shadow().granuleShift(page), publishedShadow_.granuleShift(page));
    if (leaf != leaves_.end()) {
      if (leaf->second.shift > need) fresh.emplace_back(page, need);
    } else if (need < abi::kShadowPageShift) {
      fresh.emplace_back(page, std::min(need, kCoarsestLeafShift));
    } else if (ordered && metadata.shadow().lookup(page << abi::kShadowPageShift) != 0) {
      fresh.emplace_back(page, kCoarsestLeafShift);
    } else {
      usable[page] = pageEntry(page) != 0;  // (its entry: below, on cucatch's stream where ordered)
      if (!usable[page]) unknown_.insert(page);  // (no directory: the device is full)
    }
  }
  std::vector<bool> made = makeLeaves(fresh);
  // A page whose new table could not be had (the device is full) would keep its old form, which
  // these writes leave stale: a walk could find a freed allocation, or another, where a new one
  // now lies. So it becomes unknown memory (entry 0: every access passes), and stays so: a
  // table made for it later, from publishedShadow_, would hold the result of ordered writes
  // still queued in a program's stream (skipped here, or sent into the table let go), which a
  // kernel queued before them would meet early (a review's find).
  std::vector<uint64_t> unknown;
  for (size_t i = 0; i < fresh.size(); ++i) {
    usable[fresh[i].first] = made[i];
    if (!made[i]) unknown.push_back(fresh[i].first);
  }
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
  // The changes take their values now (a captured stream replays them as they are), and no
  // staging memory has to outlive a program's stream: a memset per long run of a page table,
  // and every other word that changes (a few granules, the entries of pages that hold one
  // value, an ordered update's BST words) written by one batch of stream memory operations.
  // (One call: an enqueue costs microseconds, and a stream-ordered allocation changes six words
  // of its entry.) In the order taken: a later write may cover an earlier one (a freed
  // allocation's granules unmapped, then mapped to the allocation that reuses its address and
  // its index), so the words collected so far go out before each memset.
  std::vector<Word> words;
  for (const auto& w : writes) {
    publishedShadow_.apply(w);
    auto leaf = leaves_.find(w.page);
    if (!usable[w.page] || leaf == leaves_.end()) continue;  // (a page holding one value: below)
    // The granules of the page's table that the write touches. The page holds one value in
    // each once these writes are done, the value of the last write that touches it.
    unsigned k = leaf->second.shift - abi::kShadowGranuleShift;
    uint32_t first = w.first >> k, count = ((w.first + w.count - 1) >> k) - first + 1;
    CUdeviceptr at = leaf->second.table + uint64_t(first) * 4;
    if (count <= kShortRun) {
      for (uint32_t i = 0; i < count; ++i) words.push_back({at + 4 * i, w.value, false});
      continue;
    }
    writeWords(words, target);
    words.clear();
    d_.check(d_.cuMemsetD32Async(at, w.value, count, target), "updating the shadow map");
  }
  std::vector<Word> early;
  for (uint64_t page : unknown) {
    unknown_.insert(page);
    leaves_.erase(page);
    if (CUdeviceptr entry = pageEntry(page)) early.push_back({entry, uniformEntry(0), true});
  }
  for (uint64_t page : pages)
    if (usable[page] && !leaves_.count(page))
      (ordered ? early : words)
          .push_back({pageEntry(page), uniformEntry(publishedShadow_.lookup(page << abi::kShadowPageShift)), true});
  writeWords(early, stream_);
  if (order.kind == Order::Deferred) {
    writeWords(words, target);
    copyEntries(metadata, entries);
  } else {
    for (uint32_t index : entries) {
      const abi::BstEntry& e = metadata.bst()[index];
      uint32_t now[kWords], before[kWords];
      std::memcpy(now, &e, sizeof now);
      std::memcpy(before, &published_[index], sizeof before);
      CUdeviceptr at = bst_ + uint64_t(index) * sizeof(abi::BstEntry);
      for (unsigned k = 0; k < kWords; ++k)
        if (now[k] != before[k]) words.push_back({at + 4 * k, now[k], false});
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

void DeviceTables::writeWords(const std::vector<Word>& words, CUstream stream) {
  size_t done = 0;
  if (batchMemOps_) {
    std::vector<CUstreamBatchMemOpParams> ops;
    for (; done < words.size(); done += ops.size()) {
      ops.clear();
      for (size_t k = done; k < words.size() && ops.size() < kMaxBatch; ++k) {
        CUstreamBatchMemOpParams op{};
        op.writeValue.operation = words[k].wide ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
        op.writeValue.address = words[k].at;
        if (words[k].wide) op.writeValue.value64 = words[k].value;
        else op.writeValue.value = static_cast<uint32_t>(words[k].value);
        op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
        ops.push_back(op);
      }
      CUresult r = d_.cuStreamBatchMemOp(stream, static_cast<unsigned>(ops.size()), ops.data(), 0);
      if (r != CUDA_SUCCESS) {
        // The same words by memsets, from this batch on: for good where the device or driver has
        // no stream memory operations, else with a warning. (A 64-bit word is then two writes:
        // a kernel reading it meanwhile could see half of each.)
        if (r == CUDA_ERROR_NOT_SUPPORTED) batchMemOps_ = false;
        else d_.check(r, "updating cucatch's tables in one batch (written one by one instead)");
        break;
      }
    }
  }
  for (; done < words.size(); ++done) {
    const Word& w = words[done];
    d_.check(d_.cuMemsetD32Async(w.at, static_cast<uint32_t>(w.value), 1, stream), "updating cucatch's tables");
    if (w.wide)
      d_.check(d_.cuMemsetD32Async(w.at + 4, static_cast<uint32_t>(w.value >> 32), 1, stream), "updating cucatch's tables");
  }
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
  s.shadowRoot = root_;
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
