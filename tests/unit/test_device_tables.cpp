// DeviceTables against a driver simulated on the host: device memory is a map of 32-bit words,
// and every enqueued write lands in it at once, in the order enqueued (one stream, as a stream
// runs them). What is checked is what the device's shadow walk finds after the writes an
// update enqueues, and how they are enqueued.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "runtime/DeviceTables.h"
#include "runtime/Metadata.h"
#include "runtime/PendingUpdates.h"

using namespace cucatch;
using namespace cucatch::runtime;

namespace {

// The simulated device: words by address, a bump allocator, and which calls were made. What is
// enqueued in kProgramStream waits in `held` while `holdProgramStream` is set (a program's
// stream busy with earlier work), until release(); cucatch's own streams run at once.
const CUstream kProgramStream = reinterpret_cast<CUstream>(2);
struct FakeDevice {
  std::map<uint64_t, uint32_t> words;
  uint64_t next = 0x700000000000;
  int batches = 0, memsets = 0, allocations = 0;
  size_t batchWords = 0;  // operations in all batches so far
  bool holdProgramStream = false;
  std::vector<std::function<void()>> held;
  void run(CUstream stream, std::function<void()> op) {
    if (stream == kProgramStream && holdProgramStream) held.push_back(std::move(op));
    else op();
  }
  void release() {
    for (auto& op : held) op();
    held.clear();
    holdProgramStream = false;
  }
};
FakeDevice* device = nullptr;

void setWords(CUdeviceptr at, uint32_t value, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    if (value) device->words[at + 4 * k] = value;
    else device->words.erase(at + 4 * k);
  }
}

Driver fakeDriver() {
  Driver d;
  d.cuStreamCreate = [](CUstream* s, unsigned) { *s = reinterpret_cast<CUstream>(1); return CUDA_SUCCESS; };
  d.cuEventCreate = [](CUevent* e, unsigned) { *e = reinterpret_cast<CUevent>(1); return CUDA_SUCCESS; };
  d.cuMemHostAlloc = [](void** p, size_t bytes, unsigned) { *p = std::calloc(1, bytes); return CUDA_SUCCESS; };
  d.cuMemAlloc = [](CUdeviceptr* p, size_t bytes) {
    ++device->allocations;
    *p = device->next;
    device->next += (bytes + 0xFFFF) & ~size_t(0xFFFF);
    return CUDA_SUCCESS;
  };
  d.cuMemcpyHtoDAsync = [](CUdeviceptr at, const void* from, size_t bytes, CUstream stream) {
    std::vector<uint32_t> w(static_cast<const uint32_t*>(from), static_cast<const uint32_t*>(from) + bytes / 4);
    device->run(stream, [at, w] {
      for (size_t k = 0; k < w.size(); ++k) setWords(at + 4 * k, w[k], 1);
    });
    return CUDA_SUCCESS;
  };
  d.cuMemsetD32Async = [](CUdeviceptr at, unsigned value, size_t count, CUstream stream) {
    ++device->memsets;
    device->run(stream, [=] { setWords(at, value, count); });
    return CUDA_SUCCESS;
  };
  d.cuMemsetD2D32Async = [](CUdeviceptr at, size_t pitch, unsigned value, size_t width, size_t height, CUstream) {
    for (size_t row = 0; row < height; ++row) setWords(at + row * pitch, value, width);
    return CUDA_SUCCESS;
  };
  d.cuMemHostRegister = [](void*, size_t, unsigned) { return CUDA_SUCCESS; };
  d.cuMemHostGetDevicePointer = [](CUdeviceptr* p, void* h, unsigned) {
    *p = reinterpret_cast<CUdeviceptr>(h);
    return CUDA_SUCCESS;
  };
  d.cuStreamSynchronize = [](CUstream) { return CUDA_SUCCESS; };
  d.cuEventRecord = [](CUevent, CUstream) { return CUDA_SUCCESS; };
  d.cuStreamBatchMemOp = [](CUstream stream, unsigned count, CUstreamBatchMemOpParams* ops, unsigned) {
    if (count >= 256) return CUDA_ERROR_INVALID_VALUE;  // "must be less than 256"
    ++device->batches;
    device->batchWords += count;
    std::vector<CUstreamBatchMemOpParams> copy(ops, ops + count);
    device->run(stream, [copy] {
      for (const auto& op : copy) {
        const auto& w = op.writeValue;
        if (w.operation == CU_STREAM_MEM_OP_WRITE_VALUE_64) {
          setWords(w.address, static_cast<uint32_t>(w.value64), 1);
          setWords(w.address + 4, static_cast<uint32_t>(w.value64 >> 32), 1);
        } else {
          setWords(w.address, w.value, 1);
        }
      }
    });
    return CUDA_SUCCESS;
  };
  return d;
}

// DeviceTables made over a fresh simulated device, its updates, and the device's shadow walk
// read back from the simulated words as instrumented code walks it (cucatch_abi.h).
struct Simulated {
  FakeDevice fake;
  Driver driver = fakeDriver();
  Metadata metadata;
  std::unique_ptr<DeviceTables> tables;
  explicit Simulated(MetadataConfig config = {}) : metadata(config) {
    device = &fake;
    tables = DeviceTables::create(driver, nullptr, 1, 0, true, metadata, 16);
  }
  ~Simulated() { device = nullptr; }
  void apply(DeviceTables::Order::Kind kind = DeviceTables::Order::InStream) {
    auto entries = metadata.takeDirtyEntries();
    auto writes = metadata.shadow().takeWrites();
    tables->apply(metadata, entries, writes, DeviceTables::Order{kind, kProgramStream});
  }
  uint64_t word64(uint64_t at) { return uint64_t(fake.words[at]) | uint64_t(fake.words[at + 4]) << 32; }
  // The BST index the device's walk finds for an untagged address.
  uint32_t walk(uint64_t address) {
    uint64_t root = tables->moduleState(0).shadowRoot;
    uint64_t dir = word64(root + (address >> abi::kShadowRootShift) * 8);
    uint64_t entry = word64(dir + ((address >> abi::kShadowPageShift) & ((1u << abi::kShadowDirBits) - 1)) * 8);
    unsigned shift = static_cast<unsigned>(entry >> abi::kShadowEntryShiftBit);
    uint64_t leaf = entry & abi::kShadowEntryAddressMask;
    return fake.words[leaf + ((address & ((1u << abi::kShadowPageShift) - 1)) >> shift) * 4];
  }
  // Every granule of every page anything was mapped in, walked on the device and looked up on
  // the host; the first that differs, or 0.
  uint64_t firstDifference(const std::vector<uint64_t>& pages) {
    for (uint64_t page : pages)
      for (uint64_t g = 0; g < ShadowMap::kPageGranules; ++g) {
        uint64_t address = (page << abi::kShadowPageShift) + (g << abi::kShadowGranuleShift);
        if (walk(address) != metadata.shadow().lookup(address)) return address;
      }
    return 0;
  }
};

constexpr uint64_t kBase = 0x7f5b67e00000ull;  // a 2 MiB page boundary

}  // namespace

TEST_CASE("an ordered update writes the shadow map in the order its writes were taken", "[runtime]") {
  // A freed allocation's granules unmapped (a short write, batched), then mapped to the
  // allocation that reuses its address (a long one, a memset): the device must end with the
  // second. (Batching the short words after the memsets once left the reused address unmapped.)
  Simulated sim;
  REQUIRE(sim.tables);
  sim.metadata.shadow().map(kBase + 32, 64, 5);
  sim.apply();
  sim.metadata.shadow().map(kBase + 32, 64, 0);
  sim.metadata.shadow().map(kBase, 1024, 256);
  sim.metadata.shadow().map(kBase + 40 * 32, 32, 7);
  int batches = sim.fake.batches;
  sim.apply();
  CHECK(sim.walk(kBase + 32) == 256);
  CHECK(sim.walk(kBase + 1023) == 256);
  CHECK(sim.walk(kBase + 40 * 32) == 7);
  CHECK(sim.firstDifference({kBase >> abi::kShadowPageShift}) == 0);
  CHECK(sim.fake.batches > batches);
}

// What `run` writes to this process' stderr (file descriptor 2, where writeStderr writes).
std::string stderrOf(const std::function<void()>& run) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(capture), 2);
  run();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(capture);
  for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
  std::fclose(capture);
  return text;
}

TEST_CASE("an update the driver refuses because it was shut down at exit warns of nothing", "[runtime]") {
  // PyTorch's caching allocator frees from a library destructor that runs after the driver's own
  // teardown; the updates the free makes then fail with CUDA_ERROR_DEINITIALIZED, and no kernel
  // can run again to need them (ok_pytorch_stream_ordered printed four warnings).
  Simulated s;
  s.metadata.onAllocate(0x7f0000000000, 1 << 20, MemoryKind::StreamOrdered);
  s.driver.cuStreamBatchMemOp = [](CUstream, unsigned, CUstreamBatchMemOpParams*, unsigned) {
    return CUDA_ERROR_DEINITIALIZED;
  };
  s.driver.cuMemsetD32Async = [](CUdeviceptr, unsigned, size_t, CUstream) { return CUDA_ERROR_DEINITIALIZED; };
  CHECK(stderrOf([&] { s.apply(); }).empty());
  // Any other failure is still said.
  s.metadata.onAllocate(0x7f0000200000, 1 << 20, MemoryKind::StreamOrdered);
  s.driver.cuMemsetD32Async = [](CUdeviceptr, unsigned, size_t, CUstream) { return CUDA_ERROR_INVALID_VALUE; };
  CHECK(stderrOf([&] { s.apply(); }).find("cucatch: warning: updating cucatch's tables") != std::string::npos);
}

TEST_CASE("an ordered update of many words goes out in batches the driver takes", "[runtime]") {
  // More than 255 short writes: several batches, none of 256 operations (the driver refuses
  // those), every word written.
  Simulated sim;
  REQUIRE(sim.tables);
  sim.metadata.shadow().map(kBase + 32, 32, 999);  // the page's table: 32-byte granules
  sim.apply();
  for (uint32_t k = 0; k < 600; ++k) sim.metadata.shadow().map(kBase + 4096 + 64 * k, 32, 1000 + k);
  int batches = sim.fake.batches, memsets = sim.fake.memsets;
  sim.apply();
  CHECK(sim.firstDifference({kBase >> abi::kShadowPageShift}) == 0);
  CHECK(sim.fake.batches - batches == 3);
  CHECK(sim.fake.memsets == memsets);
}

TEST_CASE("each page is held at the coarsest granule its contents allow, and made finer when they need it",
          "[runtime]") {
  Simulated sim;
  REQUIRE(sim.tables);
  auto entryShift = [&](uint64_t address) {
    uint64_t root = sim.tables->moduleState(0).shadowRoot;
    uint64_t dir = sim.word64(root + (address >> abi::kShadowRootShift) * 8);
    return sim.word64(dir + ((address >> abi::kShadowPageShift) & ((1u << abi::kShadowDirBits) - 1)) * 8) >>
           abi::kShadowEntryShiftBit;
  };
  size_t before = sim.tables->shadowBytes();
  // 4 MiB at a page boundary: two pages of one value, no table; its padding block a 512-byte
  // table in the third page.
  sim.metadata.onAllocate(kBase, 4 << 20, MemoryKind::Device);
  sim.apply(DeviceTables::Order::Deferred);
  CHECK(entryShift(kBase) == abi::kShadowPageShift);
  CHECK(entryShift(kBase + (2 << 20)) == abi::kShadowPageShift);
  CHECK(entryShift(kBase + (4 << 20)) == 9);
  CHECK(sim.tables->shadowBytes() - before == (size_t(1) << abi::kShadowDirBits) * 8 + 4096 * 4);
  // Small allocations in the third page fit its table.
  for (int k = 1; k < 20; ++k) sim.metadata.onAllocate(kBase + (4 << 20) + 512 * k, 100 + k, MemoryKind::Device);
  sim.apply(DeviceTables::Order::Deferred);
  CHECK(entryShift(kBase + (4 << 20)) == 9);
  // Host buffers registered at other boundaries make it finer.
  sim.metadata.onAllocate(kBase + (4 << 20) + 65536 + 16, 100, MemoryKind::HostRegistered);
  sim.metadata.onAllocate(kBase + (4 << 20) + 65536 + 160, 100, MemoryKind::HostRegistered);
  sim.apply();
  CHECK(entryShift(kBase + (4 << 20)) == abi::kShadowGranuleShift);
  CHECK(sim.firstDifference({kBase >> abi::kShadowPageShift, (kBase >> abi::kShadowPageShift) + 1,
                             (kBase >> abi::kShadowPageShift) + 2}) == 0);
}

TEST_CASE("a page whose table finds the device full is unknown memory from then on", "[runtime]") {
  // The program holds every byte (ok_memory_full): a page whose contents need a finer table
  // than it has must not keep its old form, which the writes leave stale; it is made unknown
  // (entry 0: accesses pass) and said once. It stays so when memory comes back: a table made
  // then would hold the result of ordered writes still queued in a program's stream (a review's
  // find). Other pages are updated as before.
  Simulated sim;
  REQUIRE(sim.tables);
  const uint64_t page = kBase >> abi::kShadowPageShift;
  const uint64_t nextBase = kBase + (2 << 20), thirdBase = kBase + (4 << 20);
  // One page of one value (no table), the next with a table of 512-byte granules.
  sim.metadata.onAllocate(kBase, 2 << 20, MemoryKind::Device);
  for (int k = 0; k < 4; ++k) sim.metadata.onAllocate(nextBase + 4096 * k, 1000, MemoryKind::Device);
  sim.apply(DeviceTables::Order::Deferred);
  REQUIRE(sim.walk(kBase + 4096) != 0);
  REQUIRE(sim.walk(nextBase + 4096) != 0);
  auto fits = sim.driver.cuMemAlloc;
  sim.driver.cuMemAlloc = [](CUdeviceptr*, size_t) { return CUDA_ERROR_OUT_OF_MEMORY; };
  // The first page's allocation replaced by small ones (a table needed); host buffers at
  // 16-byte boundaries in the second (a finer table needed).
  sim.metadata.onFree(kBase);
  for (int k = 0; k < 8; ++k) sim.metadata.onAllocate(kBase + 65536 * k, 4096 + 16 * k, MemoryKind::Device);
  sim.metadata.onAllocate(nextBase + 65536 + 16, 100, MemoryKind::HostRegistered);
  std::string said = stderrOf([&] { sim.apply(DeviceTables::Order::Deferred); });
  CHECK(said.starts_with("cucatch: note: device 0 has no memory left for cucatch's shadow map"));
  CHECK(std::count(said.begin(), said.end(), '\n') == 1);
  auto unknownThroughout = [&](uint64_t base) {
    for (uint64_t g = 0; g < ShadowMap::kPageGranules; g += 97)
      if (sim.walk(base + (g << abi::kShadowGranuleShift)) != 0) return false;
    return true;
  };
  CHECK(unknownThroughout(kBase));
  CHECK(unknownThroughout(nextBase));
  // Another update while full: said no more.
  sim.metadata.onAllocate(kBase + 65536 * 9, 100, MemoryKind::Device);
  CHECK(stderrOf([&] { sim.apply(); }).empty());
  // Memory again: those pages stay unknown; a third page gets its table.
  sim.driver.cuMemAlloc = fits;
  sim.metadata.onAllocate(kBase + 65536 * 10, 100, MemoryKind::Device);
  sim.metadata.onAllocate(nextBase + 65536 + 160, 100, MemoryKind::HostRegistered);
  sim.metadata.onAllocate(thirdBase + 16, 100, MemoryKind::HostRegistered);
  sim.apply();
  CHECK(unknownThroughout(kBase));
  CHECK(unknownThroughout(nextBase));
  CHECK(sim.walk(thirdBase + 16) != 0);
  CHECK(sim.firstDifference({page + 2}) == 0);
}

TEST_CASE("random allocations and frees: the device walk finds what the host mirror holds", "[runtime]") {
  // Ordered and deferred updates interleaved, allocations small and large (some across pages),
  // host buffers at any 16-byte boundary, entries reused: after each update every granule of
  // every page touched agrees.
  Simulated sim(MetadataConfig{.bstCapacity = 400});
  REQUIRE(sim.tables);
  std::mt19937 rng(5);
  std::vector<uint64_t> live;
  std::set<uint64_t> pages;
  std::map<uint64_t, uint64_t> sizes;
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || rng() % 3) {
      uint64_t size = rng() % 4 ? 1 + rng() % 3000 : (1 << 20) + rng() % (5 << 20);
      uint64_t base = kBase + (uint64_t(rng() % 24) << 20) + 512 * (rng() % 64);
      auto kind = rng() % 4 == 0 ? MemoryKind::StreamOrdered : MemoryKind::Device;
      if (rng() % 6 == 0) {  // a host buffer registered anywhere: pages' tables made finer
        kind = MemoryKind::HostRegistered;
        base += 16 * (rng() % 32);
      }
      if (sim.metadata.find(base) || sim.metadata.find(base + size - 1)) continue;
      bool overlaps = false;
      for (uint64_t p : live) overlaps |= untag(p) < base + size && base < untag(p) + sizes[untag(p)];
      if (overlaps) continue;
      live.push_back(sim.metadata.onAllocate(base, size, kind));
      sizes[base] = size;
    } else {
      size_t k = rng() % live.size();
      REQUIRE(sim.metadata.onFree(live[k]).status == FreeStatus::Ok);
      live.erase(live.begin() + k);
    }
    for (uint64_t page : sim.metadata.shadow().pages()) pages.insert(page);
    sim.apply(rng() % 2 ? DeviceTables::Order::InStream : DeviceTables::Order::Deferred);
    if (step % 40 == 0) {
      INFO("step " << step);
      REQUIRE(sim.firstDifference({pages.begin(), pages.end()}) == 0);
    }
  }
  CHECK(sim.firstDifference({pages.begin(), pages.end()}) == 0);
}

TEST_CASE("an ordered update still queued in a program's stream never undoes a page table linked since",
          "[runtime]") {
  // The program's stream is busy: a 4 MiB stream-ordered allocation's writes wait in it. Then
  // it is freed and a small allocation takes its address in the same stream, which needs the
  // page at 512-byte granules. Had the first update written the page's entry (a page of one
  // value), that write, run late, would undo the table linked for the second, and the small
  // allocation's granules would land in a table nothing points at (a review found this).
  Simulated sim;
  REQUIRE(sim.tables);
  sim.fake.holdProgramStream = true;
  uint64_t a = sim.metadata.onAllocate(kBase, 4 << 20, MemoryKind::StreamOrdered);
  sim.apply();
  REQUIRE(sim.metadata.onFree(a).status == FreeStatus::Ok);
  sim.metadata.onAllocate(kBase, 1000, MemoryKind::StreamOrdered);
  sim.apply();
  sim.fake.release();
  uint64_t page = kBase >> abi::kShadowPageShift;
  CHECK(sim.firstDifference({page, page + 1}) == 0);
}

TEST_CASE("an ordered update maps a large range with one set of tables, and unmaps one without any", "[runtime]") {
  // A stream-ordered allocation of 10 MiB (five pages of one value): their tables come from one
  // allocation, linked in one batch. Unmapping a range of whole pages in a program's stream (the
  // old range of an entry handed out again) writes their entries on cucatch's stream at once:
  // no tables, and seen before the program's stream gets there.
  Simulated sim;
  REQUIRE(sim.tables);
  std::vector<uint64_t> pages;
  for (uint64_t k = 0; k < 6; ++k) pages.push_back((kBase >> abi::kShadowPageShift) + k);
  int allocations = sim.fake.allocations;
  sim.metadata.onAllocate(kBase, 10 << 20, MemoryKind::StreamOrdered);
  sim.apply();
  CHECK(sim.fake.allocations - allocations <= 2);  // the directory, the tables
  CHECK(sim.firstDifference(pages) == 0);
  sim.metadata.shadow().map(kBase + (12 << 20), 4 << 20, 9);  // two more pages of one value, deferred
  sim.apply(DeviceTables::Order::Deferred);
  size_t bytes = sim.tables->shadowBytes();
  sim.fake.holdProgramStream = true;
  sim.metadata.shadow().map(kBase + (12 << 20), 4 << 20, 0);
  sim.apply();
  CHECK(sim.tables->shadowBytes() == bytes);
  CHECK(sim.walk(kBase + (12 << 20)) == 0);
  sim.fake.release();
  pages.push_back(pages.back() + 1);
  pages.push_back(pages.back() + 1);
  CHECK(sim.firstDifference(pages) == 0);
}

TEST_CASE("a stream-ordered allocation and free at one address enqueue a memset and two batches of three words",
          "[runtime]") {
  // The host bench's loop (cudaMallocAsync + cudaFreeAsync of 1 MiB, the pool handing the same
  // address back): once the direct indices have come round, each allocation remaps its granules
  // of the page's 512-byte table to its new index (one memset) and writes its entry's tag, state
  // and record (one batch), and each free its state (one batch). docs/overhead.md ("What each
  // enqueue costs") measures what these cost on an H100.
  Simulated sim;
  REQUIRE(sim.tables);
  for (int pair = 0; pair < 400; ++pair) {
    int batches = sim.fake.batches, memsets = sim.fake.memsets;
    size_t words = sim.fake.batchWords;
    uint64_t p = sim.metadata.onAllocate(kBase, 1 << 20, MemoryKind::StreamOrdered);
    sim.apply();
    CHECK(sim.walk(kBase + 12345) == (p >> 56));
    int allocationBatches = sim.fake.batches - batches, allocationMemsets = sim.fake.memsets - memsets;
    size_t allocationWords = sim.fake.batchWords - words;
    REQUIRE(sim.metadata.onFree(p).status == FreeStatus::Ok);
    sim.apply();
    if (pair < 200) continue;  // (the first lap writes whole entries)
    CHECK(allocationMemsets == 1);
    CHECK(allocationBatches == 1);
    CHECK(allocationWords == 2);
    CHECK(sim.fake.memsets - memsets == 1);
    CHECK(sim.fake.batches - batches == 2);
    CHECK(sim.fake.batchWords - words == 3);
  }
}

// ---- stream-ordered changes kept pending (runtime/PendingUpdates.h) ---------------------------

TEST_CASE("pending stream-ordered changes: a free cancels its allocation's mapping, and the rest keeps its order",
          "[runtime]") {
  const CUstream a = reinterpret_cast<CUstream>(10), b = reinterpret_cast<CUstream>(11);
  auto write = [](uint32_t first, uint32_t count, uint32_t value) { return ShadowMap::Write{7, first, count, value}; };
  PendingUpdates pending;
  pending.add({1, a, 16, {16}, {write(0, 4, 0), write(100, 50, 16)}});  // index 16: its old range unmapped, then mapped
  pending.add({1, b, 18, {18}, {write(200, 8, 18)}});
  pending.add({1, a, 0, {20}, {}});  // a free
  pending.add({1, a, 0, {}, {}});    // nothing: not kept
  CHECK(pending.size() == 3);
  CHECK(pending.maps(16));
  CHECK(pending.maps(18));
  CHECK_FALSE(pending.maps(20));
  CHECK_FALSE(pending.maps(0));

  using Cancelled = PendingUpdates::Cancelled;
  std::vector<uint32_t> entries;
  CHECK(pending.cancel(20, entries) == Cancelled::NotPending);
  REQUIRE(pending.cancel(16, entries) == Cancelled::Anywhere);  // 16 had no allocation before
  CHECK(entries == std::vector<uint32_t>{16});
  CHECK_FALSE(pending.maps(16));  // what is left of it maps nothing
  CHECK(pending.cancel(16, entries) == Cancelled::NotPending);
  REQUIRE(pending.cancel(18, entries) == Cancelled::Anywhere);  // all of it mapping: gone
  CHECK(pending.size() == 2);

  pending.add({1, b, 22, {22, 21}, {write(300, 2, 22)}});
  auto updates = pending.take();
  CHECK(pending.empty());
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].stream == a);  // the first change's stream first
  CHECK(updates[0].entries == std::vector<uint32_t>{20});
  CHECK(updates[0].writes == std::vector<ShadowMap::Write>{write(0, 4, 0)});
  CHECK(updates[1].stream == b);
  CHECK(updates[1].entries == std::vector<uint32_t>{21, 22});
  CHECK(updates[1].writes == std::vector<ShadowMap::Write>{write(300, 2, 22)});

  // Index 22's allocation went out (take): a kernel may still use it when 22 is given out again,
  // so an allocation with 22 cancelled later keeps its entry in its stream, behind that kernel.
  // So does one whose index an ordinary allocation had (markSeen).
  pending.add({1, a, 22, {22}, {write(400, 8, 22)}});
  entries.clear();
  REQUIRE(pending.cancel(22, entries) == Cancelled::InStream);
  CHECK(entries.empty());
  pending.markSeen(24);
  pending.add({1, b, 24, {24}, {write(500, 8, 24)}});
  REQUIRE(pending.cancel(24, entries) == Cancelled::InStream);
  CHECK(entries.empty());
  updates = pending.take();
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].entries == std::vector<uint32_t>{22});
  CHECK(updates[0].writes.empty());
  CHECK(updates[1].entries == std::vector<uint32_t>{24});
  // An allocation cancelled with its entry in the stream was seen by no kernel, but the one
  // before it may still be in use by a kernel ahead in the stream (its entry went out, and its
  // free is behind that kernel): the next one to get its index keeps its entry in its stream too,
  // behind that kernel (a review's find: it took Anywhere, and its entry, freed, reached the
  // device on cucatch's stream while the kernel still read the first holder's pointers).
  pending.add({1, a, 22, {22}, {write(400, 8, 22)}});
  CHECK(pending.cancel(22, entries) == Cancelled::InStream);
  CHECK(entries.empty());
  pending.take();
  // An index no kernel saw a holder of: cancelled anywhere, pair after pair (the host bench's loop).
  pending.add({1, a, 26, {26}, {write(600, 8, 26)}});
  REQUIRE(pending.cancel(26, entries) == Cancelled::Anywhere);  // 26 had no holder a kernel saw
  pending.add({1, a, 26, {26}, {write(600, 8, 26)}});
  CHECK(pending.cancel(26, entries) == Cancelled::Anywhere);
}

TEST_CASE("an allocation freed while its change is pending reaches the device as its entry alone", "[runtime]") {
  // The host bench's loop again, as the runtime keeps the changes pending (Runtime::allocated,
  // Runtime::free): no pair enqueues anything; the entries go out together afterwards on
  // cucatch's stream, and a stale pointer finds its allocation's entry, freed, by its tag.
  Simulated sim;
  REQUIRE(sim.tables);
  // An earlier allocation at the address, which a kernel saw: mapped on the device.
  uint64_t seen = sim.metadata.onAllocate(kBase, 1 << 20, MemoryKind::StreamOrdered);
  sim.apply();
  REQUIRE(sim.metadata.onFree(seen).status == FreeStatus::Ok);
  sim.apply();
  const uint32_t seenIndex = static_cast<uint32_t>(seen >> 56);
  REQUIRE(sim.walk(kBase + 100) == seenIndex);

  PendingUpdates pending;
  std::vector<uint32_t> held;
  int batches = sim.fake.batches, memsets = sim.fake.memsets;
  uint64_t last = 0;
  for (int pair = 0; pair < 400; ++pair) {
    uint64_t p = sim.metadata.onAllocate(kBase, 1 << 20, MemoryKind::StreamOrdered);
    const uint32_t index = static_cast<uint32_t>(p >> 56);
    REQUIRE(index >= abi::kFirstDirectTag);
    pending.add({1, kProgramStream, index, sim.metadata.takeDirtyEntries(), sim.metadata.shadow().takeWrites()});
    REQUIRE(pending.maps(index));
    REQUIRE(sim.metadata.onFree(p).status == FreeStatus::Ok);
    REQUIRE(pending.cancel(index, held) == PendingUpdates::Cancelled::Anywhere);
    auto freed = sim.metadata.takeDirtyEntries();
    held.insert(held.end(), freed.begin(), freed.end());
    CHECK(sim.metadata.shadow().takeWrites().empty());
    last = p;
  }
  CHECK(pending.empty());
  CHECK(sim.fake.batches == batches);
  CHECK(sim.fake.memsets == memsets);

  std::sort(held.begin(), held.end());
  held.erase(std::unique(held.begin(), held.end()), held.end());
  sim.tables->apply(sim.metadata, held, {}, DeviceTables::Order{});  // the next launch's flushUpdates
  CHECK(sim.walk(kBase + 100) == seenIndex);  // the device never mapped the pairs
  const uint64_t entry = sim.tables->moduleState(0).bst + (last >> 56) * sizeof(abi::BstEntry);
  CHECK(sim.word64(entry) == kBase);
  CHECK(sim.word64(entry + 8) == (1u << 20));
  CHECK(sim.fake.words[entry + abi::kBstMetaOffset] == ((last >> 56) | (uint32_t(abi::kBstFreed) << 8)));
}

TEST_CASE("a pending allocation not freed reaches its stream with its mapping", "[runtime]") {
  Simulated sim;
  REQUIRE(sim.tables);
  PendingUpdates pending;
  uint64_t p = sim.metadata.onAllocate(kBase, 1 << 20, MemoryKind::StreamOrdered);
  pending.add({1, kProgramStream, static_cast<uint32_t>(p >> 56), sim.metadata.takeDirtyEntries(),
               sim.metadata.shadow().takeWrites()});
  CHECK(sim.walk(kBase) == 0);
  for (const auto& u : pending.take())
    sim.tables->apply(sim.metadata, u.entries, u.writes, DeviceTables::Order{DeviceTables::Order::InStream, u.stream});
  CHECK(sim.walk(kBase + 12345) == (p >> 56));
  CHECK(sim.firstDifference({kBase >> abi::kShadowPageShift}) == 0);
}

TEST_CASE("an untagged allocation in the order of its predecessor's free takes its index back and maps nothing",
          "[runtime]") {
  // The host bench's loop with tags off (JIT mode's default), or with a library's raw pointers:
  // the pool hands the same address back on the same stream. Each allocation used to take a new
  // indirect index, so its mapping was a memset and a batch, enqueued before its free (the
  // pair cost about 7x the driver's). Taking back the index of the allocation freed there, in
  // that stream's order (Runtime::allocated decides), changes one entry and no granule: the
  // pairs leave entries pending, which go out together.
  Simulated sim(MetadataConfig{.tags = false});
  REQUIRE(sim.tables);
  const uint64_t size = 1 << 20;
  uint64_t first = sim.metadata.onAllocate(kBase, size, MemoryKind::StreamOrdered);
  REQUIRE(first == kBase);  // untagged
  sim.apply();
  const uint32_t index = sim.metadata.find(kBase)->bstIndex;
  REQUIRE(sim.walk(kBase + 100) == index);
  REQUIRE(sim.metadata.onFree(first).status == FreeStatus::Ok);
  sim.apply();

  PendingUpdates pending;
  for (int pair = 0; pair < 300; ++pair) {
    uint64_t p = sim.metadata.onAllocate(kBase, size, MemoryKind::StreamOrdered, {}, false, true);
    const Allocation* a = sim.metadata.find(kBase);
    REQUIRE(a->live);
    CHECK(a->bstIndex == index);
    CHECK(sim.metadata.deviceView(p + 4096).verdict == 0);
    CHECK(sim.metadata.shadow().takeWrites().empty());
    pending.add({1, kProgramStream, index, sim.metadata.takeDirtyEntries(), {}});
    CHECK_FALSE(pending.maps(index));  // (so the free sends nothing ahead of itself)
    REQUIRE(sim.metadata.onFree(p).status == FreeStatus::Ok);
    CHECK(sim.metadata.deviceView(p + 4096).verdict == abi::kMetaVerdictBad);
    CHECK(sim.metadata.shadow().takeWrites().empty());
    pending.add({1, kProgramStream, 0, sim.metadata.takeDirtyEntries(), {}});
  }
  // Out in the stream's order: the device finds the last pair's allocation, freed.
  int batches = sim.fake.batches, memsets = sim.fake.memsets;
  for (const auto& u : pending.take())
    sim.tables->apply(sim.metadata, u.entries, u.writes, DeviceTables::Order{DeviceTables::Order::InStream, u.stream});
  CHECK(sim.fake.memsets == memsets);
  CHECK(sim.fake.batches - batches == 1);
  CHECK(sim.walk(kBase + 100) == index);
  const uint64_t entry = sim.tables->moduleState(0).bst + index * sizeof(abi::BstEntry);
  CHECK(sim.fake.words[entry + abi::kBstMetaOffset] == (uint32_t(abi::kBstFreed) << 8));

  // Not taken back: another size there, or without the caller's word on the order.
  uint64_t other = sim.metadata.onAllocate(kBase, size / 2, MemoryKind::StreamOrdered, {}, false, true);
  const uint32_t otherIndex = sim.metadata.find(kBase)->bstIndex;
  CHECK(otherIndex != index);
  REQUIRE(sim.metadata.onFree(other).status == FreeStatus::Ok);
  sim.metadata.onAllocate(kBase, size / 2, MemoryKind::StreamOrdered);
  CHECK(sim.metadata.find(kBase)->bstIndex != otherIndex);
}

TEST_CASE("the shadow map writes a mapping it holds already, unless told the device has it", "[runtime]") {
  // A review's find: PendingUpdates::cancel drops the writes of an allocation freed while
  // pending, and the host map keeps its mapping; a later allocation given that index there must
  // still write it, or the device keeps what it had before. Only an index taken back skips.
  ShadowMap map;
  map.map(kBase, 4096, 300);
  REQUIRE(map.takeWrites().size() == 1);
  map.map(kBase, 4096, 300);
  CHECK(map.takeWrites().size() == 1);
  map.map(kBase, 4096, 300, true);
  CHECK(map.takeWrites().empty());
  map.map(kBase, 8192, 300, true);  // (partly new: that page's run is written)
  CHECK(map.takeWrites().size() == 1);
}
