// The runtime's host-side metadata: tags handed out, BST entries, the shadow map, and what
// the device's READMETADATA would find (deviceView mirrors the emitted PTX), without a GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>

#include "runtime/LaunchMetadata.h"
#include "runtime/Metadata.h"
#include "runtime/StackLimit.h"

using namespace cucatch::runtime;
namespace abi = cucatch::abi;

namespace {
constexpr uint64_t kMB = 1 << 20;
uint64_t deviceAddress(int i) { return 0x7f5b67e00000ull + uint64_t(i) * 4 * kMB; }
}  // namespace

TEST_CASE("the first allocations get direct tags: the tag is the BST index", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  CHECK(untag(p) == deviceAddress(0));
  CHECK(tagOf(p) == abi::kFirstDirectTag);
  auto v = m.deviceView(p + 100);
  CHECK(v.index == tagOf(p));
  CHECK(v.entry.base == deviceAddress(0));
  CHECK(v.entry.size == 1024);
  CHECK(v.verdict == 0);
  // An untagged pointer to the same memory finds it through the shadow map.
  CHECK(m.deviceView(deviceAddress(0) + 1000).index == tagOf(p));
}

TEST_CASE("tags off, managed and host-mapped memory: untagged pointers found by address", "[runtime]") {
  Metadata off(MetadataConfig{.tags = false});
  uint64_t p = off.onAllocate(deviceAddress(0), 4096, MemoryKind::Device);
  CHECK(tagOf(p) == 0);
  CHECK(off.deviceView(p + 4095).entry.base == deviceAddress(0));

  Metadata m;
  uint64_t managed = m.onAllocate(deviceAddress(1), 4096, MemoryKind::Managed);
  uint64_t mapped = m.onAllocate(deviceAddress(2), 4096, MemoryKind::HostMapped);
  CHECK(tagOf(managed) == 0);
  CHECK(tagOf(mapped) == 0);
  CHECK(m.deviceView(managed + 8).entry.size == 4096);
  CHECK(m.deviceView(mapped).entry.base == deviceAddress(2));
  // Host-registered memory, and memory a precompiled library allocated: untagged, still tracked.
  uint64_t registered = m.onAllocate(deviceAddress(3), 4096, MemoryKind::HostRegistered);
  uint64_t library = m.onAllocate(deviceAddress(4), 4096, MemoryKind::Device, {}, /*raw=*/true);
  CHECK(tagOf(registered) == 0);
  CHECK(tagOf(library) == 0);
  CHECK(m.deviceView(registered + 100).entry.size == 4096);
  CHECK(m.deviceView(library + 4095).entry.base == deviceAddress(4));
  REQUIRE(m.find(library));
  CHECK(m.find(library)->byLibrary);
  CHECK(memoryKindName(m.find(registered)->kind) == "host-registered");
}

TEST_CASE("unknown memory is entry 0: everything passes but the null page", "[runtime]") {
  Metadata m;
  auto v = m.deviceView(0x1234567000ull);
  CHECK(v.index == 0);
  CHECK(v.entry.base == abi::kNullPageBytes);
  CHECK(v.entry.base + v.entry.size == 0);  // up to the end of the address space
  CHECK(v.verdict == 0);
  auto null = m.deviceView(16);
  CHECK(null.index == 0);
  CHECK(16 < null.entry.base);
  // Addresses beyond what the first level covers are unknown too, not a crash.
  CHECK(m.deviceView(0x00F0000000000000ull).index == 0);
}

TEST_CASE("one past the end maps to its own allocation; the granule after does not", "[runtime]") {
  Metadata m;
  // 1024 bytes end on a 512-byte boundary: the padding for one past the end is the next block.
  uint64_t p = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device, {});
  uint64_t untagged = untag(p);
  CHECK(m.deviceView(untagged + 1024).index == tagOf(p));
  CHECK(m.deviceView(untagged + 1535).index == tagOf(p));
  CHECK(m.deviceView(untagged + 1536).index == 0);
  // Stream-ordered memory gets no padding: the pool's next allocation starts right there, and
  // is mapped from its own stream (docs/design.md, "Device tables").
  uint64_t q = m.onAllocate(deviceAddress(1), 1024, MemoryKind::StreamOrdered, {});
  CHECK(m.deviceView(untag(q) + 1023).index == tagOf(q));
  CHECK(m.deviceView(untag(q) + 1024).index == 0);
}

TEST_CASE("addresses reserved for untracked memory map to nothing, whatever lay there before", "[runtime]") {
  // The driver gives a reservation (cuMemAddressReserve) the addresses of a freed cudaMalloc
  // allocation it asks for (H200); the memory mapped there is not tracked, and an access
  // through a raw pointer into it must not be checked against the freed allocation
  // (ok_vmm_after_free: a use-after-free was reported in JIT mode).
  Metadata m(MetadataConfig{.tags = false});
  const uint64_t base = deviceAddress(0);
  uint64_t p = m.onAllocate(base, 64 * kMB, MemoryKind::Device);
  m.onFree(p);
  REQUIRE(m.deviceView(base + kMB).verdict == abi::kMetaVerdictBad);
  m.onUntrackedReserve(base, 64 * kMB);
  for (uint64_t at : {base, base + kMB + 4, base + 64 * kMB - 4}) {
    CHECK(m.deviceView(at).index == 0);
    CHECK(m.deviceView(at).verdict == 0);
  }
  // An allocation right below the reservation: its extent past its end stops at it.
  uint64_t below = m.onAllocate(base - 4096, 4096, MemoryKind::Device);
  CHECK(m.deviceView(below + 4095).index != 0);
  CHECK(m.deviceView(base).index == 0);
  // Released, the addresses are an allocation's again.
  m.onUntrackedRelease(base);
  uint64_t again = m.onAllocate(base, 4096, MemoryKind::Device);
  CHECK(m.deviceView(again).index == m.find(base)->bstIndex);
  CHECK(m.deviceView(again).verdict == 0);
}

TEST_CASE("untracked memory at a freed allocation's addresses is not that allocation, until one is made there", "[runtime]") {
  // Another process's buffer opened by IPC landed where this process had freed a 4 MiB
  // cudaMalloc buffer (H200, ok_ipc_after_free): its kernels' correct accesses were reported as
  // a use-after-free, and a cudaFree of an imported pool pointer there would have been a double
  // free. Runtime::free asks untrackedAt and leaves such a free to the driver.
  Metadata m;
  const uint64_t base = deviceAddress(0), size = 4 * kMB;
  uint64_t p = m.onAllocate(base, size, MemoryKind::Device);
  m.onFree(p);
  CHECK_FALSE(m.untrackedAt(base));
  m.onUntrackedReserve(base, size);
  CHECK(m.deviceView(base + 33024).index == 0);
  CHECK(m.deviceView(base + 33024).verdict == 0);
  CHECK(m.untrackedAt(base));
  CHECK(m.untrackedAt(withTag(base + size - 1, 7)));
  CHECK_FALSE(m.untrackedAt(base + size));
  CHECK_FALSE(m.untrackedAt(base - 1));
  // Its release is by a call cucatch may not see (a graph destroyed): the driver placing an
  // allocation there ends the range, which must not then hide that allocation's frees.
  uint64_t again = m.onAllocate(base + kMB, kMB, MemoryKind::Device);
  CHECK_FALSE(m.untrackedAt(base));
  CHECK_FALSE(m.untrackedAt(base + kMB));
  CHECK(m.deviceView(untag(again)).index == m.find(base + kMB)->bstIndex);
  CHECK(m.onFree(again).status == FreeStatus::Ok);
  // Two ranges: an allocation overlapping the end of the first and the start of the second
  // ends both; one below both ends neither.
  m.onUntrackedReserve(base + 8 * kMB, 2 * kMB);
  m.onUntrackedReserve(base + 10 * kMB, 2 * kMB);
  m.onAllocate(base + 6 * kMB, 2 * kMB, MemoryKind::Device);
  CHECK(m.untrackedAt(base + 8 * kMB));
  m.onAllocate(base + 9 * kMB, 2 * kMB, MemoryKind::Device);
  CHECK_FALSE(m.untrackedAt(base + 8 * kMB));
  CHECK_FALSE(m.untrackedAt(base + 11 * kMB));
}

TEST_CASE("untracked ranges never overlap, and end by any address in them", "[runtime]") {
  // A review's find: a range left recorded (a graph destroyed) under a newer one inside it
  // came back into view when the newer one was released, over a live allocation made between
  // them, whose frees would then have gone to the driver unseen.
  Metadata m;
  const uint64_t base = deviceAddress(0);
  m.onUntrackedReserve(base, 16 * kMB);
  m.onUntrackedReserve(base + 2 * kMB, 2 * kMB, true);
  CHECK_FALSE(m.untrackedAt(base));  // the older range ended
  REQUIRE(m.untrackedAt(base + 3 * kMB));
  CHECK(m.untrackedAt(base + 3 * kMB)->endsAtFree);
  uint64_t live = m.onAllocate(base + 8 * kMB, kMB, MemoryKind::Device);
  m.onUntrackedRelease(base + 2 * kMB + 4096);  // (an address inside it)
  CHECK_FALSE(m.untrackedAt(base + 2 * kMB));
  CHECK_FALSE(m.untrackedAt(live));
  CHECK(m.onFree(live).status == FreeStatus::Ok);
  // A graph's allocation: a free outside the graph does not end it (Runtime::free asks).
  m.onUntrackedReserve(base + 32 * kMB, kMB);
  REQUIRE(m.untrackedAt(base + 32 * kMB));
  CHECK_FALSE(m.untrackedAt(base + 32 * kMB)->endsAtFree);
}

TEST_CASE("an allocation captured into a graph never gives its index to a later one", "[runtime]") {
  // A graph replays the table writes captured with its allocation and free at every launch
  // (design.md, "Device tables": values taken at the capture). Had the index gone back to the
  // quarantine, an allocation that took it later would have its entry written over, live and
  // then freed, by every launch after that, and its own accesses reported.
  for (bool tags : {true, false}) {
    Metadata m(MetadataConfig{.tags = tags});
    uint64_t captured = m.onAllocate(deviceAddress(0), 4096, MemoryKind::StreamOrdered, {}, false, false, true);
    const uint32_t index = m.find(deviceAddress(0))->bstIndex;
    CHECK(index >= 256);  // (an indirect one: the direct ones are few)
    REQUIRE(m.onFree(captured).status == FreeStatus::Ok);
    for (int k = 0; k < 3000; ++k) {
      uint64_t p = m.onAllocate(deviceAddress(1 + k % 7), 4096, MemoryKind::Device);
      CHECK(m.find(untag(p))->bstIndex != index);
      REQUIRE(m.onFree(p).status == FreeStatus::Ok);
    }
    // (Stream-ordered and untagged: not even by taking it back at its address.)
    uint64_t again = m.onAllocate(deviceAddress(0), 4096, MemoryKind::StreamOrdered, {}, false, true);
    CHECK(m.find(untag(again))->bstIndex != index);
    // Freed in a capture (allocated outside): retired too.
    const uint32_t outside = m.find(untag(again))->bstIndex;
    REQUIRE(m.onFree(again, {}, true).status == FreeStatus::Ok);
    for (int k = 0; k < 3000; ++k) {
      uint64_t p = m.onAllocate(deviceAddress(1 + k % 7), 4096, MemoryKind::Device);
      CHECK(m.find(untag(p))->bstIndex != outside);
      REQUIRE(m.onFree(p).status == FreeStatus::Ok);
    }
  }
}

TEST_CASE("an allocation captured into a graph takes no index whose previous holder it would unmap", "[runtime]") {
  // A review's find: an index from the quarantine unmaps its previous holder's granules, and in
  // a capture that unmapping is captured too, so every launch of the graph would unmap whatever
  // was mapped there since. A captured allocation takes a fresh index, or none.
  Metadata m(MetadataConfig{.bstCapacity = 512});
  std::vector<uint64_t> made;
  for (int k = 0; k < 600; ++k) made.push_back(m.onAllocate(deviceAddress(0) + uint64_t(k) * 4096, 4096, MemoryKind::Device));
  for (uint64_t p : made) REQUIRE(m.onFree(p).status == FreeStatus::Ok);
  m.shadow().takeWrites();
  // Nothing fresh left: untracked. Its writes (0) stay inside its own range, the graph's.
  const uint64_t at = deviceAddress(0) + 590 * 4096;
  uint64_t captured = m.onAllocate(at, 4096, MemoryKind::StreamOrdered, {}, false, false, true);
  CHECK(tagOf(captured) == 0);
  for (const auto& w : m.shadow().takeWrites()) {
    const uint64_t first = (w.page << abi::kShadowPageShift) + (uint64_t(w.first) << abi::kShadowGranuleShift);
    CHECK(first >= at);
    CHECK(first + (uint64_t(w.count) << abi::kShadowGranuleShift) <= at + 4096);
  }
  // Outside a capture the same allocation takes a quarantined index, unmapping its holder's.
  uint64_t ordinary = m.onAllocate(deviceAddress(9), 4096, MemoryKind::StreamOrdered);
  CHECK(tagOf(ordinary) != 0);
}

TEST_CASE("the last fresh indices are kept for allocations made in a capture", "[runtime]") {
  // A review's find: ordinary allocations took every fresh index first, so a long-running
  // program (tags off, or a library's raw pointers) had none left for its first capture.
  Metadata m(MetadataConfig{.tags = false, .bstCapacity = 512});
  for (int k = 0; k < 5000; ++k) {  // far more allocations than the table has entries
    uint64_t p = m.onAllocate(deviceAddress(k % 9), 4096, MemoryKind::Device);
    REQUIRE(m.find(untag(p))->bstIndex != 0);
    REQUIRE(m.onFree(p).status == FreeStatus::Ok);
  }
  uint64_t captured = m.onAllocate(deviceAddress(20), 4096, MemoryKind::StreamOrdered, {}, false, false, true);
  CHECK(m.find(untag(captured))->bstIndex != 0);
}

TEST_CASE("a graph's allocation freed outside the graph after each launch is no double free", "[runtime]") {
  // The graph has no free of it, so the program frees it after each launch; each launch made it
  // live again on the device (its captured writes), which the host does not see.
  Metadata m;
  uint64_t g = m.onAllocate(deviceAddress(0), 4096, MemoryKind::StreamOrdered, {}, false, false, true);
  for (int launch = 0; launch < 3; ++launch) {
    CHECK(m.onFree(g).status == FreeStatus::Ok);
    CHECK(m.deviceView(untag(g)).verdict == abi::kMetaVerdictBad);  // (the host's view: freed)
  }
  // Not so for an allocation made outside a capture.
  uint64_t p = m.onAllocate(deviceAddress(1), 4096, MemoryKind::StreamOrdered);
  REQUIRE(m.onFree(p).status == FreeStatus::Ok);
  CHECK(m.onFree(p).status == FreeStatus::DoubleFree);
}

TEST_CASE("where devices read pageable host memory, freed host memory maps to nothing", "[runtime]") {
  // HMM or ATS (a Grace Hopper): a kernel may read host memory the program unregistered, or
  // that malloc handed out again at a freed buffer's addresses (ok_pageable_after_unregister),
  // through a raw pointer. Elsewhere the freed entry stays, so a kernel still using the
  // buffer's device pointer is told it was freed.
  for (bool pageable : {false, true}) {
    Metadata m;
    if (pageable) m.allowPageableAccess();
    const uint64_t host = 0x7f1234560010ull;
    for (MemoryKind kind : {MemoryKind::HostRegistered, MemoryKind::HostMapped}) {
      const uint64_t at = host + (kind == MemoryKind::HostMapped ? 64 * kMB : 0);
      uint64_t p = m.onAllocate(at, 8 * kMB, kind);
      CHECK(p == at);  // (untagged: host code uses the same pointer)
      REQUIRE(m.deviceView(at + kMB).index != 0);
      m.onFree(p);
      CHECK((m.deviceView(at + kMB).index == 0) == pageable);
      CHECK((m.deviceView(at + 8 * kMB - 4).verdict == 0) == pageable);
      // The driver refused the free: the allocation is mapped again, live.
      m.undoFree(p);
      CHECK(m.deviceView(at + kMB).index != 0);
      CHECK(m.deviceView(at + kMB).verdict == 0);
      m.onFree(p);
    }
  }
}

TEST_CASE("an allocation maps up to the driver's 512-byte block boundary, never over a live neighbour", "[runtime]") {
  // cudaMalloc places allocations on 512-byte boundaries and rounds sizes up to them (H100):
  // the rest of the last block is the allocation's, and a page of small allocations is exact
  // at 512-byte granules.
  Metadata m;
  uint64_t a = m.onAllocate(deviceAddress(0), 100, MemoryKind::Device);
  uint64_t b = m.onAllocate(deviceAddress(0) + 512, 300, MemoryKind::StreamOrdered);
  CHECK(m.deviceView(untag(a) + 511).index == tagOf(a));
  CHECK(m.deviceView(untag(b) + 511).index == tagOf(b));
  CHECK(m.deviceView(untag(b) + 512).index == 0);
  uint64_t page = deviceAddress(0) >> abi::kShadowPageShift;
  CHECK(m.shadow().granuleShift(page) == 9);
  // Allocated before its lower neighbour, whose padding would reach into it: kept.
  uint64_t c = m.onAllocate(deviceAddress(0) + 2048, 64, MemoryKind::Device);
  uint64_t d = m.onAllocate(deviceAddress(0) + 1536, 512, MemoryKind::Device);
  CHECK(m.deviceView(untag(c)).index == tagOf(c));
  CHECK(m.deviceView(untag(d) + 511).index == tagOf(d));
  // Host buffers registered at any boundary: the second starts 5 granules into the block.
  m.onAllocate(deviceAddress(1) + 16, 100, MemoryKind::HostRegistered);
  m.onAllocate(deviceAddress(1) + 160, 100, MemoryKind::HostRegistered);
  CHECK(m.shadow().granuleShift(deviceAddress(1) >> abi::kShadowPageShift) == abi::kShadowGranuleShift);
  // A page inside one allocation holds one value: the page's own granule.
  uint64_t big = m.onAllocate(deviceAddress(2), 3 * kMB, MemoryKind::Device);
  uint64_t bigPage = deviceAddress(2) >> abi::kShadowPageShift;
  CHECK(m.shadow().granuleShift(bigPage) == abi::kShadowPageShift);
  CHECK(m.shadow().granuleShift(bigPage + 1) == 9);  // 1 MiB and its padding block, then nothing
  std::vector<uint32_t> tail = m.shadow().leaf(bigPage + 1, 9);
  CHECK(tail.size() == 4096);
  CHECK(tail[2048] == tagOf(big));  // the padding block
  CHECK(tail[2049] == 0);
}

TEST_CASE("a pool that places allocations off the 512-byte boundary gets no rounded extents from then on",
          "[runtime]") {
  Metadata m;
  uint64_t a = m.onAllocate(deviceAddress(0), 100, MemoryKind::StreamOrdered);
  CHECK(m.deviceView(untag(a) + 511).index == tagOf(a));
  uint64_t b = m.onAllocate(deviceAddress(0) + 4096 + 256, 100, MemoryKind::StreamOrdered);
  CHECK(m.deviceView(untag(b) + 99).index == tagOf(b));
  CHECK(m.deviceView(untag(b) + 128).index == 0);  // (its last granule holds bytes 96..127)
  uint64_t c = m.onAllocate(deviceAddress(1), 100, MemoryKind::StreamOrdered);
  CHECK(m.deviceView(untag(c) + 128).index == 0);
}

TEST_CASE("more live allocations than direct tags: temporal tags through the shadow map", "[runtime]") {
  Metadata m;
  std::vector<uint64_t> ptrs;
  for (int i = 0; i < 1000; ++i) ptrs.push_back(m.onAllocate(deviceAddress(i), 512 + i, MemoryKind::Device));
  int direct = 0, temporal = 0;
  for (int i = 0; i < 1000; ++i) {
    uint8_t t = tagOf(ptrs[i]);
    if (t >= abi::kFirstDirectTag) ++direct;
    else if (t >= abi::kFirstTemporalTag && t <= abi::kLastTemporalTag) ++temporal;
    auto v = m.deviceView(ptrs[i] + 17);
    REQUIRE(v.entry.base == deviceAddress(i));
    REQUIRE(v.entry.size == uint64_t(512 + i));
    REQUIRE(v.verdict == 0);
  }
  CHECK(direct == 120);
  CHECK(temporal == 880);
  CHECK(m.live().size() == 1000);
}

TEST_CASE("every tag handed out is even: a 57-bit address field keeps none of it", "[runtime]") {
  // TMA descriptors hold bits 0..56 of a global address (cuBLASLt builds them from the
  // program's pointers itself): bit 56, the tag's lowest bit, must be clear.
  Metadata m;
  std::set<uint8_t> direct, temporal;
  for (int i = 0; i < 2000; ++i) {
    uint64_t p = m.onAllocate(deviceAddress(i), 64, MemoryKind::Device);
    REQUIRE((p & (uint64_t(1) << 56)) == 0);
    REQUIRE((p & ((uint64_t(1) << 57) - 1)) == deviceAddress(i));
    (tagOf(p) >= abi::kFirstDirectTag ? direct : temporal).insert(tagOf(p));
    if (i % 3 == 0) m.onFree(p, {});  // reuse: quarantined direct indices, new temporal tags
  }
  CHECK(direct.size() == 120);
  CHECK(temporal == std::set<uint8_t>{2, 4, 6, 8, 10, 12, 14});
}

TEST_CASE("use after free: the freed entry keeps its bounds and says freed", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(deviceAddress(0), 256, MemoryKind::Device, {0xA110C});
  auto r = m.onFree(p, {0xF1EE});
  REQUIRE(r.status == FreeStatus::Ok);
  CHECK(r.base == deviceAddress(0));
  auto v = m.deviceView(p + 4);
  CHECK(v.entry.base == deviceAddress(0));
  CHECK(v.verdict == abi::kMetaVerdictBad);
  CHECK(v.entry.state == abi::kBstFreed);
  const Allocation* a = m.find(deviceAddress(0) + 4);
  REQUIRE(a);
  CHECK_FALSE(a->live);
  CHECK(a->allocatedAt == Backtrace{0xA110C});
  CHECK(a->freedAt == Backtrace{0xF1EE});
}

TEST_CASE("a stale temporal-tagged pointer into reallocated memory is a tag mismatch", "[runtime]") {
  Metadata m;
  for (int i = 0; i < 120; ++i) m.onAllocate(deviceAddress(100 + i), 64, MemoryKind::Device);  // use up direct tags
  uint64_t old = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  REQUIRE(tagOf(old) <= abi::kLastTemporalTag);
  REQUIRE(m.onFree(old).status == FreeStatus::Ok);
  uint64_t fresh = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  REQUIRE(untag(fresh) == untag(old));
  CHECK(tagOf(fresh) != tagOf(old));
  CHECK(m.deviceView(fresh).verdict == 0);
  CHECK(m.deviceView(old + 8).verdict == abi::kMetaVerdictBad);
  CHECK(m.deviceView(old + 8).entry.state == abi::kBstLive);
}

TEST_CASE("double free and invalid free are told apart", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(deviceAddress(0), 4096, MemoryKind::Device, {0xA});
  CHECK(m.onFree(p, {0xF1}).status == FreeStatus::Ok);
  auto again = m.onFree(p, {0xF2});
  CHECK(again.status == FreeStatus::DoubleFree);
  REQUIRE(again.allocation);
  CHECK(again.allocation->freedAt == Backtrace{0xF1});

  uint64_t q = m.onAllocate(deviceAddress(1), 4096, MemoryKind::Device);
  auto interior = m.onFree(q + 16);
  CHECK(interior.status == FreeStatus::InvalidFree);
  CHECK(interior.allocation == m.find(untag(q)));
  auto unknown = m.onFree(0x1000);
  CHECK(unknown.status == FreeStatus::InvalidFree);
  CHECK(unknown.allocation == nullptr);
}

TEST_CASE("dirty tracking: what changed since the last upload", "[runtime]") {
  Metadata m;
  m.takeDirtyEntries();
  m.shadow().takeWrites();
  uint64_t p = m.onAllocate(deviceAddress(0), 64, MemoryKind::Device);
  CHECK(m.takeDirtyEntries() == std::vector<uint32_t>{tagOf(p)});
  // 64 bytes, their padding and the rest of the 512-byte block: 16 granules, one run.
  uint64_t page = deviceAddress(0) >> abi::kShadowPageShift;
  uint32_t first = static_cast<uint32_t>((deviceAddress(0) >> abi::kShadowGranuleShift) & (ShadowMap::kPageGranules - 1));
  CHECK(m.shadow().takeWrites() == std::vector<ShadowMap::Write>{{page, first, 16, tagOf(p)}});
  CHECK(m.shadow().takeWrites().empty());
  CHECK(m.takeDirtyEntries().empty());
  m.onFree(p);
  CHECK(m.takeDirtyEntries() == std::vector<uint32_t>{tagOf(p)});
}

TEST_CASE("a context that appears later builds every page there is", "[runtime]") {
  // DeviceTables::create builds the pages of pages() for a context made after allocations.
  Metadata m;
  CHECK(m.shadow().pages().empty());
  uint64_t far = deviceAddress(0) + (uint64_t(5) << abi::kShadowRootShift);
  m.onAllocate(far, 64, MemoryKind::Device);
  m.onAllocate(deviceAddress(0), 64, MemoryKind::Device);
  uint64_t page = deviceAddress(0) >> abi::kShadowPageShift, farPage = far >> abi::kShadowPageShift;
  CHECK(m.shadow().pages() == std::vector<uint64_t>{page, farPage});
  for (uint64_t p : m.shadow().pages()) {
    unsigned shift = m.shadow().granuleShift(p);
    CHECK(m.shadow().leaf(p, shift).size() == ShadowMap::kPageGranules >> (shift - abi::kShadowGranuleShift));
  }
  // A copy of those tables answers as the writes applied one by one did.
  CHECK(m.shadow().lookup(far) != 0);
  unsigned shift = m.shadow().granuleShift(farPage);
  CHECK(m.shadow().leaf(farPage, shift).at((far & ((1u << abi::kShadowPageShift) - 1)) >> shift) ==
        m.shadow().lookup(far));
}

TEST_CASE("a full table leaves new allocations untracked and untagged, not broken", "[runtime]") {
  Metadata m(MetadataConfig{.bstCapacity = 300});
  std::vector<uint64_t> ptrs;
  for (int i = 0; i < 400; ++i) ptrs.push_back(m.onAllocate(deviceAddress(i), 128, MemoryKind::Device));
  // 120 direct + 44 indirect (256..299) tracked; the rest pass as unknown.
  CHECK(m.deviceView(ptrs[399]).index == 0);
  CHECK(tagOf(ptrs[399]) == 0);
  CHECK(m.deviceView(ptrs[0]).verdict == 0);
}

TEST_CASE("random allocation and free sequences agree with a simple model", "[runtime]") {
  Metadata m(MetadataConfig{.bstCapacity = 4096});
  std::mt19937 rng(7);
  struct Live { uint64_t ptr, base, size; };
  std::vector<Live> live;
  int slot = 0;
  for (int step = 0; step < 5000; ++step) {
    if (live.empty() || rng() % 3) {
      // Like a real allocator: an address is handed out again only once it was freed.
      uint64_t base;
      do base = deviceAddress(slot++ % 3000);
      while (std::any_of(live.begin(), live.end(), [&](const Live& l) { return l.base == base; }));
      uint64_t size = 32 + rng() % 100000;
      live.push_back({m.onAllocate(base, size, MemoryKind::Device), base, size});
    } else {
      size_t k = rng() % live.size();
      REQUIRE(m.onFree(live[k].ptr).status == FreeStatus::Ok);
      live.erase(live.begin() + k);
    }
    if (step % 97 == 0)
      for (const auto& l : live) {
        auto v = m.deviceView(l.ptr + l.size - 1);
        REQUIRE(v.entry.base == l.base);
        REQUIRE(v.entry.size == l.size);
        REQUIRE(v.verdict == 0);
      }
  }
}

TEST_CASE("a free the driver refused can be taken back", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(deviceAddress(0), 128, MemoryKind::Device);
  REQUIRE(m.onFree(p).status == FreeStatus::Ok);
  CHECK(m.deviceView(p).verdict == abi::kMetaVerdictBad);
  CHECK(m.deviceView(p).entry.state == abi::kBstFreed);
  m.undoFree(untag(p));
  CHECK(m.deviceView(p).verdict == 0);
  CHECK(m.find(untag(p))->live);
  CHECK(m.onFree(p).status == FreeStatus::Ok);  // and it can be freed again
}

TEST_CASE("an allocation's shadow writes are one run per page", "[runtime]") {
  Metadata m;
  m.shadow().takeWrites();
  // 40 MiB from 1 MiB before a 2 MiB page's end: the rest of that page, 19 whole pages, 1 MiB
  // of the one after; the padding block continues the last run.
  uint64_t pageBytes = uint64_t(1) << abi::kShadowPageShift;
  uint64_t base = (deviceAddress(0) | (pageBytes - 1)) + 1 - kMB;
  uint64_t p = m.onAllocate(base, 40 * kMB, MemoryKind::Device);
  uint64_t page = base >> abi::kShadowPageShift;
  uint32_t granulesPerMB = kMB >> abi::kShadowGranuleShift;
  std::vector<ShadowMap::Write> expected{{page, granulesPerMB, granulesPerMB, tagOf(p)}};
  for (uint64_t k = 1; k <= 19; ++k)
    expected.push_back({page + k, 0, static_cast<uint32_t>(ShadowMap::kPageGranules), tagOf(p)});
  expected.push_back({page + 20, 0, granulesPerMB + 16, tagOf(p)});
  CHECK(m.shadow().takeWrites() == expected);
  CHECK(m.shadow().granuleShift(page) == 20);
  CHECK(m.shadow().granuleShift(page + 1) == abi::kShadowPageShift);
}

TEST_CASE("shadow writes taken in batches rebuild the host mirror exactly", "[runtime]") {
  // The device tables apply the writes taken since the last flush, in order (DeviceTables::
  // apply): whatever the batching, the device copy must end up equal to the host mirror. A
  // small table makes freed entries come back, so stale mappings are unmapped too.
  Metadata m(MetadataConfig{.bstCapacity = 512});
  std::map<uint64_t, std::vector<uint32_t>> device;
  auto flush = [&] {
    for (const auto& w : m.shadow().takeWrites()) {
      auto& t = device[w.page];
      if (t.empty()) t.assign(ShadowMap::kPageGranules, 0);
      std::fill_n(t.begin() + w.first, w.count, w.value);
    }
  };
  std::mt19937 rng(11);
  std::vector<uint64_t> live;
  int next = 0;
  for (int step = 0; step < 3000; ++step) {
    if (live.empty() || rng() % 2) {
      uint64_t size = rng() % 3 ? 32 + rng() % 5000 : kMB + rng() % (9 * kMB);
      live.push_back(m.onAllocate(deviceAddress(next++ % 1500), size, MemoryKind::Device));
    } else {
      size_t k = rng() % live.size();
      REQUIRE(m.onFree(live[k]).status == FreeStatus::Ok);
      live.erase(live.begin() + k);
    }
    if (rng() % 7 == 0) flush();
  }
  flush();
  for (uint64_t page : m.shadow().pages()) {
    INFO("page " << page);
    REQUIRE(device.count(page));
    CHECK(device[page] == m.shadow().leaf(page, abi::kShadowGranuleShift));
    // The page at its own granule holds the same.
    unsigned shift = m.shadow().granuleShift(page);
    std::vector<uint32_t> coarse = m.shadow().leaf(page, shift);
    for (int k = 0; k < 2000; ++k) {
      uint32_t g = static_cast<uint32_t>(rng() % ShadowMap::kPageGranules);
      CHECK(m.shadow().lookup(((page << ShadowMap::kPageGranuleBits) + g) << abi::kShadowGranuleShift) == device[page][g]);
      CHECK(coarse[g >> (shift - abi::kShadowGranuleShift)] == device[page][g]);
    }
  }
}

TEST_CASE("findNear: a pointer a little outside an allocation with its tag, for untagging", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  uint64_t q = m.onAllocate(deviceAddress(0) + 1024 + 512, 1024, MemoryKind::Device);
  uint64_t a = untag(p), b = untag(q);
  // Inside, one element before (one-based indexing), one past the end and a little after.
  CHECK(m.findNear(a + 100, tagOf(p), 4096) == m.find(a));
  CHECK(m.findNear(a - 8, tagOf(p), 4096) == m.find(a));
  CHECK(m.findNear(a + 1024, tagOf(p), 4096) == m.find(a));
  CHECK(m.findNear(a + 1024 + 16, tagOf(p), 4096) == m.find(a));
  // Before q, in the gap after p: q's tag finds q, p's finds p.
  CHECK(m.findNear(b - 4, tagOf(q), 4096) == m.find(b));
  CHECK(m.findNear(b - 4, tagOf(p), 4096) == m.find(a));
  // Another tag, or farther than the slack: nothing.
  CHECK(m.findNear(a + 100, uint8_t(tagOf(q) + 2), 4096) == nullptr);
  CHECK(m.findNear(a - 8192, tagOf(p), 4096) == nullptr);
  CHECK(m.findNear(b + 1024 + 8192, tagOf(q), 4096) == nullptr);
}

TEST_CASE("freed indirect indices wait in quarantine before they are handed out again", "[runtime]") {
  // Tags off: every index is indirect. 800 never-used ones (capacity 1056 less the 256 below the
  // first indirect one), so a quarantine of 100 (an eighth).
  Metadata m(MetadataConfig{.tags = false, .bstCapacity = 1056});
  auto address = [](int i) { return deviceAddress(i % 2000) + uint64_t(i / 2000) * 256; };
  std::vector<uint64_t> live;
  for (int i = 0; i < 800; ++i) live.push_back(m.onAllocate(address(i), 64, MemoryKind::StreamOrdered));
  uint32_t firstIndex = m.deviceView(live[0]).index;
  REQUIRE(firstIndex != 0);
  for (int i = 0; i < 100; ++i) m.onFree(live[i]);
  // 100 freed: all in quarantine, none handed out yet.
  uint64_t next = m.onAllocate(address(900), 64, MemoryKind::StreamOrdered);
  CHECK(m.deviceView(next).index == 0);
  CHECK(m.deviceView(live[0]).index == firstIndex);  // the freed entry is still found (freed)
  CHECK(m.deviceView(live[0]).entry.state == abi::kBstFreed);
  // One more freed: the oldest leaves the quarantine.
  m.onFree(live[100]);
  uint64_t reused = m.onAllocate(address(901), 64, MemoryKind::StreamOrdered);
  CHECK(m.deviceView(reused).index == firstIndex);
}

TEST_CASE("an index handed out again leaves nothing mapped to it past a smaller allocation made at its holder's base",
          "[runtime]") {
  // Tags off, 800 indirect indices (as above). A freed 64 KiB allocation's tail stays mapped to
  // its index, freed (a stale pointer there is a use after free), once a 4 KiB allocation takes
  // its base; when that index goes to another allocation, the tail must map to nothing, not to
  // the new holder (an untagged pointer there would be checked against that one's bounds).
  Metadata m(MetadataConfig{.tags = false, .bstCapacity = 1056});
  const uint64_t base = deviceAddress(0), tail = base + 32 * 1024;
  uint64_t big = m.onAllocate(base, 64 * 1024, MemoryKind::Device);
  const uint32_t freedIndex = m.deviceView(big).index;
  REQUIRE(freedIndex != 0);
  m.onFree(big);
  uint64_t small = m.onAllocate(base, 4096, MemoryKind::Device);
  const uint32_t smallIndex = m.deviceView(small).index;
  REQUIRE(smallIndex != freedIndex);
  CHECK(m.deviceView(tail).index == freedIndex);
  CHECK(m.deviceView(tail).entry.state == abi::kBstFreed);
  std::deque<uint64_t> others;
  uint64_t taker = 0;
  for (int i = 1; i < 1800 && !taker; ++i) {
    uint64_t p = m.onAllocate(deviceAddress(i), 64, MemoryKind::Device);
    if (m.deviceView(p).index == freedIndex) taker = p;
    others.push_back(p);
    if (others.size() > 200) {
      m.onFree(others.front());
      others.pop_front();
    }
  }
  REQUIRE(taker != 0);
  CHECK(m.deviceView(tail).index == 0);
  CHECK(m.deviceView(small + 100).index == smallIndex);
  CHECK(m.deviceView(small + 100).entry.base == base);
  CHECK(m.deviceView(taker).entry.base == untag(taker));
}

TEST_CASE("registered host memory keeps its padding alone: the host placed what follows it", "[runtime]") {
  Metadata m;
  uint64_t p = m.onAllocate(deviceAddress(0), 100, MemoryKind::HostRegistered);
  CHECK(m.deviceView(p + 128).index != 0);  // the 32 bytes of padding (granule 128..159)
  CHECK(m.deviceView(p + 160).index == 0);
}

TEST_CASE("an allocation the full table leaves untracked is covered by no neighbour's extent", "[runtime]") {
  // Its pointers are untagged: had the neighbour's padding block stayed over it, the walk would
  // find the neighbour and report its accesses as that one's overflow.
  Metadata m(MetadataConfig{.bstCapacity = 300});
  for (int i = 0; i < 163; ++i) m.onAllocate(deviceAddress(i + 10), 128, MemoryKind::Device);
  uint64_t a = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  REQUIRE(m.deviceView(a).index != 0);
  REQUIRE(m.deviceView(untag(a) + 1024).index == m.deviceView(a).index);  // its padding block
  uint64_t b = m.onAllocate(deviceAddress(0) + 1024, 512, MemoryKind::Device);
  CHECK(tagOf(b) == 0);
  CHECK(m.deviceView(b).index == 0);
  CHECK(m.deviceView(b + 511).index == 0);
}

TEST_CASE("an allocation made after an untracked neighbour above it keeps its padding off it", "[runtime]") {
  // The other order of the case above: the untracked allocation first, then (an entry freed
  // since) one just below it whose padding block would be the untracked one's first block.
  Metadata m(MetadataConfig{.bstCapacity = 300});
  std::vector<uint64_t> filler;
  for (int i = 0; i < 164; ++i) filler.push_back(m.onAllocate(deviceAddress(i + 10), 128, MemoryKind::Device));
  uint64_t b = m.onAllocate(deviceAddress(0) + 1024, 512, MemoryKind::Device);
  REQUIRE(tagOf(b) == 0);
  REQUIRE(m.deviceView(b).index == 0);
  // Free enough direct entries that one comes back (64 wait in quarantine first).
  for (int i = 0; i < 100; ++i) REQUIRE(m.onFree(filler[i]).status == FreeStatus::Ok);
  uint64_t a = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  REQUIRE(m.deviceView(a).index != 0);
  CHECK(m.deviceView(b).index == 0);
  CHECK(m.deviceView(b + 511).index == 0);
  CHECK(m.deviceView(untag(a) + 1023).index == m.deviceView(a).index);
}

TEST_CASE("a context's stack limit for kernels that recurse: raised once, the program's reported", "[runtime]") {
  using cucatch::runtime::StackLimit;
  StackLimit s;
  // A module whose kernels need 1x + 288 bytes: the driver's 1024 is the program's limit.
  s.need(1000, 288);
  s.observed(1024);
  REQUIRE(s.toSet() == std::optional<size_t>(1312));
  // The driver rounds what is set up (as the H200's did: 3572 -> 3584): read back, that is not a
  // raise of the driver's, and nothing more is set at the next launch.
  s.setDone(1024, 1312, 1328);
  s.observed(1328);
  CHECK_FALSE(s.toSet());
  CHECK(s.programView() == std::optional<size_t>(1024));
  // The program sets 2048: 2048 + 288 is set, 2048 reported.
  CHECK(s.neededFor(2048) == 2336);
  s.setDone(2048, 2336, 2336);
  CHECK(s.programView() == std::optional<size_t>(2048));
  // The driver raised it for a launch (a kernel with a larger static stack): that is the
  // program's now, and the reserve is for it.
  s.observed(4096);
  CHECK(s.asked() == std::optional<size_t>(4096));
  CHECK_FALSE(s.programView());
  REQUIRE(s.toSet() == std::optional<size_t>(4384));
  s.setDone(4096, 4384, 4384);
  CHECK(s.programView() == std::optional<size_t>(4096));
  // A module that needs more: the largest ratio and the largest extra.
  s.need(1500, 100);
  CHECK(s.neededFor(1000) == 1788);
}

TEST_CASE("a context's stack limit the program sets before any kernel needs more", "[runtime]") {
  cucatch::runtime::StackLimit s;
  CHECK(s.neededFor(3000) == 3000);
  s.setDone(3000, 3000, 3008);
  CHECK_FALSE(s.programView());
  // A module registered later: its reserve is for the program's 3000, from the 3008 read back.
  s.need(1200, 64);
  s.observed(3008);
  CHECK(s.asked() == std::optional<size_t>(3000));
  CHECK(s.toSet() == std::optional<size_t>(3664));
}

TEST_CASE("a launch twin's arguments: the kernel's own, then each pointer's bounds as the device reads them",
          "[runtime]") {
  Metadata m;
  uint64_t a = m.onAllocate(deviceAddress(0), 1024, MemoryKind::Device);
  uint64_t b = m.onAllocate(deviceAddress(1), 256, MemoryKind::Device);
  m.onFree(b);
  uint64_t raw = deviceAddress(0) + 64;  // untagged, into a: found by address
  float scale = 2.0f;
  uint64_t pa = a + 8, pb = b, pr = raw;
  void* params[] = {&pa, &scale, &pb, &pr};
  // (Every state's words, from deviceView: launchView gives none for some, in the next test.)
  auto view = [&](uint64_t p) { return std::optional(m.deviceView(p)); };
  std::vector<LaunchBounds> bounds;
  std::vector<void*> out;
  REQUIRE(launchTwinArguments(params, 4, {0, 2, 3}, view, bounds, out));
  REQUIRE(out.size() == 4 + 3 * 3);
  for (int i = 0; i < 4; ++i) CHECK(out[i] == params[i]);
  // The words as the device's READMETADATA makes them: verdict | entry tag << 8 | entry state << 16.
  auto at = [&](size_t k, size_t field) { return out[4 + 3 * k + field]; };
  CHECK(*static_cast<uint64_t*>(at(0, 0)) == deviceAddress(0));
  CHECK(*static_cast<uint64_t*>(at(0, 1)) == 1024);
  CHECK(*static_cast<uint32_t*>(at(0, 2)) == (uint32_t(tagOf(a)) << 8 | uint32_t(abi::kBstLive) << 16));
  // The freed allocation: its own bounds, the bad verdict, state freed.
  CHECK(*static_cast<uint64_t*>(at(1, 0)) == deviceAddress(1));
  CHECK(*static_cast<uint64_t*>(at(1, 1)) == 256);
  CHECK(*static_cast<uint32_t*>(at(1, 2)) == (1u | uint32_t(tagOf(b)) << 8 | uint32_t(abi::kBstFreed) << 16));
  // The untagged pointer: found by address, compared with the entry's own tag, so live.
  CHECK(*static_cast<uint64_t*>(at(2, 0)) == deviceAddress(0));
  CHECK(*static_cast<uint64_t*>(at(2, 1)) == 1024);
  CHECK(*static_cast<uint32_t*>(at(2, 2)) == (uint32_t(tagOf(a)) << 8 | uint32_t(abi::kBstLive) << 16));
}

TEST_CASE("a launch twin is not given bounds the host does not keep", "[runtime]") {
  Metadata m;
  std::vector<LaunchBounds> bounds;
  std::vector<void*> out;
  auto view = [&](uint64_t p) { return m.launchView(p); };
  // A device-heap block's tag: its entry is the device's own.
  uint64_t heap = withTag(deviceAddress(0), abi::kFirstHeapTag);
  REQUIRE(isDeviceHeapTag(tagOf(heap)));
  void* params[] = {&heap};
  CHECK_FALSE(launchTwinArguments(params, 1, {0}, view, bounds, out));
  // A position past the kernel's parameters (a site table that does not match the module).
  uint64_t p = m.onAllocate(deviceAddress(1), 64, MemoryKind::Device);
  void* one[] = {&p};
  CHECK_FALSE(launchTwinArguments(one, 1, {1}, view, bounds, out));
  CHECK(launchTwinArguments(one, 1, {0}, view, bounds, out));
  // An allocation made in a capture (a graph's), and one freed in a capture: the graphs' launches
  // decide whether they are live when a kernel runs, so the kernel itself runs and reads them from
  // the device's tables.
  uint64_t inGraph = m.onAllocate(deviceAddress(2), 64, MemoryKind::StreamOrdered, {}, false, false, /*captured=*/true);
  void* graphs[] = {&inGraph};
  CHECK_FALSE(launchTwinArguments(graphs, 1, {0}, view, bounds, out));
  m.onFree(inGraph);  // outside the graph, after a launch; the next launch makes it live again
  CHECK_FALSE(launchTwinArguments(graphs, 1, {0}, view, bounds, out));
  uint64_t freedByGraph = m.onAllocate(deviceAddress(3), 64, MemoryKind::Device);
  void* later[] = {&freedByGraph};
  CHECK(launchTwinArguments(later, 1, {0}, view, bounds, out));
  m.onFree(freedByGraph, {}, /*captured=*/true);  // freed when the graph runs, not yet
  CHECK_FALSE(launchTwinArguments(later, 1, {0}, view, bounds, out));
  CHECK(launchTwinArguments(one, 1, {0}, view, bounds, out));  // the others still get theirs
  // A pointer the host holds freed, or stale: its free may be ordered after the kernel on the
  // device (a wait there), so the device's tables decide when the kernel runs.
  uint64_t freed = m.onAllocate(deviceAddress(4), 64, MemoryKind::Device);
  m.onFree(freed);
  void* stale[] = {&freed};
  REQUIRE(m.deviceView(freed).verdict != 0);
  CHECK_FALSE(launchTwinArguments(stale, 1, {0}, view, bounds, out));
  // Bits 48..55 set (where a frame tag goes) under no global tag: instrumented code walks the
  // shadow map with the low 48 bits, and so does the host's view.
  uint64_t framed = untag(p) | uint64_t(5) << 48;
  CHECK(m.deviceView(framed).index == m.deviceView(untag(p)).index);
  CHECK(m.deviceView(framed).entry.base == deviceAddress(1));
}

TEST_CASE("a program that allocates and frees on and on keeps a bounded number of records", "[runtime]") {
  // Every allocation at one address replaces the freed one before it; the replaced ones are kept
  // for reports of stale pointers up to a bound, and so are their records by ID (a first version
  // kept an ID for every allocation ever made: host memory growing with a long-running program).
  Metadata m;
  uint64_t first = 0, last = 0;
  for (int i = 0; i < 20000; ++i) {
    uint64_t p = m.onAllocate(deviceAddress(0), 1024, MemoryKind::StreamOrdered);
    const Allocation* a = m.find(p);
    REQUIRE(a);
    if (i == 0) first = a->id;
    last = a->id;
    REQUIRE(m.onFree(p).status == FreeStatus::Ok);
  }
  CHECK(m.allocationsKept() <= 4096 + 1);
  CHECK(m.byId(first) == nullptr);  // long replaced
  REQUIRE(m.byId(last));
  CHECK(m.byId(last)->base == deviceAddress(0));
}
