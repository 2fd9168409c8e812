#include "runtime/Metadata.h"

#include <algorithm>
#include <bit>

namespace cucatch::runtime {

// ----------------------------------------------------------------------------- shadow map

namespace {
// Calls fn(page, first, count) for the granules [base, base + size) covers, one run per 2 MiB
// page, as far as the device walk reaches.
template <class Fn>
void forEachPageRun(uint64_t base, uint64_t size, Fn fn) {
  if (size == 0) return;
  uint64_t first = untag(base) >> abi::kShadowGranuleShift;
  uint64_t last = (untag(base) + size - 1) >> abi::kShadowGranuleShift;
  last = std::min(last, (ShadowMap::kAddressLimit >> abi::kShadowGranuleShift) - 1);
  for (uint64_t g = first; g <= last;) {
    uint64_t page = g >> ShadowMap::kPageGranuleBits;
    uint64_t runLast = std::min(last, ((page + 1) << ShadowMap::kPageGranuleBits) - 1);
    fn(page, static_cast<uint32_t>(g & (ShadowMap::kPageGranules - 1)), static_cast<uint32_t>(runLast - g + 1));
    g = runLast + 1;
  }
}
}  // namespace

void ShadowMap::splitAt(uint64_t granule) {
  auto it = runs_.upper_bound(granule);
  if (it == runs_.begin()) return;
  --it;
  if (it->first < granule && granule < it->second.end) {
    runs_.emplace(granule, it->second);
    it->second.end = granule;
  }
}

template <class Fn>
void ShadowMap::forEachRunIn(uint64_t from, uint64_t to, Fn fn) const {
  auto it = runs_.upper_bound(from);
  if (it != runs_.begin()) --it;
  for (; it != runs_.end() && it->first < to; ++it) {
    uint64_t lo = std::max(it->first, from), hi = std::min(it->second.end, to);
    if (lo < hi) fn(lo, hi, it->second.value);
  }
}

void ShadowMap::assign(uint64_t first, uint64_t end, uint32_t value) {
  splitAt(first);
  splitAt(end);
  runs_.erase(runs_.lower_bound(first), runs_.lower_bound(end));
  if (value == 0) return;
  auto it = runs_.emplace(first, Run{end, value}).first;
  if (auto next = std::next(it); next != runs_.end() && next->first == end && next->second.value == value) {
    it->second.end = next->second.end;
    runs_.erase(next);
  }
  if (it != runs_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == first && prev->second.value == value) {
      prev->second.end = it->second.end;
      runs_.erase(it);
    }
  }
}

void ShadowMap::map(uint64_t base, uint64_t size, uint32_t index, bool onlyChanges) {
  forEachPageRun(base, size, [&](uint64_t page, uint32_t first, uint32_t count) {
    uint64_t at = (page << kPageGranuleBits) + first;
    if (index == 0) {  // unmapping: only where something is mapped
      bool any = false;
      forEachRunIn(at, at + count, [&](uint64_t, uint64_t, uint32_t) { any = true; });
      if (!any) return;
    } else if (onlyChanges) {  // only where not all of it maps to `index` already
      bool same = false;
      forEachRunIn(at, at + count, [&](uint64_t lo, uint64_t hi, uint32_t v) {
        same = lo == at && hi == at + count && v == index;
      });
      if (same) return;
    }
    assign(at, at + count, index);
    recordWrite(page, first, count, index);
  });
}

void ShadowMap::unmapWhereMapped(uint64_t base, uint64_t size, uint32_t index) {
  forEachPageRun(base, size, [&](uint64_t page, uint32_t first, uint32_t count) {
    uint64_t from = (page << kPageGranuleBits) + first;
    // The parts of [from, from + count) that map to `index`, in increasing order (collected
    // first: unmapping them changes the runs).
    std::vector<std::pair<uint64_t, uint64_t>> parts;
    forEachRunIn(from, from + count, [&](uint64_t lo, uint64_t hi, uint32_t value) {
      if (value == index) parts.emplace_back(lo, hi);
    });
    for (auto [lo, hi] : parts) {
      assign(lo, hi, 0);
      recordWrite(page, static_cast<uint32_t>(lo - (page << kPageGranuleBits)), static_cast<uint32_t>(hi - lo), 0);
    }
  });
}

void ShadowMap::recordWrite(uint64_t page, uint32_t first, uint32_t count, uint32_t value) {
  if (!writes_.empty() && writes_.back().page == page && writes_.back().value == value &&
      writes_.back().first + writes_.back().count == first)
    writes_.back().count += count;
  else
    writes_.push_back(Write{page, first, count, value});
}

void ShadowMap::apply(const Write& w) {
  uint64_t at = (w.page << kPageGranuleBits) + w.first;
  assign(at, at + w.count, w.value);
}

uint32_t ShadowMap::lookup(uint64_t address) const {
  uint64_t g = untag(address) >> abi::kShadowGranuleShift;
  auto it = runs_.upper_bound(g);
  if (it == runs_.begin()) return 0;
  --it;
  return g < it->second.end ? it->second.value : 0;
}

std::vector<ShadowMap::Part> ShadowMap::mapped(uint64_t from, uint64_t to) const {
  std::vector<Part> out;
  forEachRunIn(from >> abi::kShadowGranuleShift, to >> abi::kShadowGranuleShift, [&](uint64_t lo, uint64_t hi, uint32_t v) {
    out.push_back({lo << abi::kShadowGranuleShift, hi << abi::kShadowGranuleShift, v});
  });
  return out;
}

std::vector<ShadowMap::Write> ShadowMap::takeWrites() {
  std::vector<Write> out;
  out.swap(writes_);
  return out;
}

unsigned ShadowMap::granuleShift(uint64_t page) const {
  uint64_t from = page << kPageGranuleBits, to = from + kPageGranules;
  // The finest alignment of a change of value inside the page (granules).
  unsigned finest = kPageGranuleBits;
  uint64_t at = from;    // where the part seen so far ends
  uint32_t value = 0;    // its value (0 before the first run)
  auto change = [&](uint64_t where) {
    if (where > from && where < to) finest = std::min<unsigned>(finest, std::countr_zero(where - from));
  };
  forEachRunIn(from, to, [&](uint64_t lo, uint64_t hi, uint32_t v) {
    if (lo != at) {  // a gap (value 0) before this run
      if (value != 0) change(at);
      value = 0;
    }
    if (v != value) change(lo);
    at = hi;
    value = v;
  });
  if (at != to && value != 0) change(at);
  return abi::kShadowGranuleShift + finest;
}

std::vector<uint32_t> ShadowMap::leaf(uint64_t page, unsigned shift) const {
  unsigned k = shift - abi::kShadowGranuleShift;
  uint64_t from = page << kPageGranuleBits;
  std::vector<uint32_t> out(kPageGranules >> k, 0);
  forEachRunIn(from, from + kPageGranules, [&](uint64_t lo, uint64_t hi, uint32_t value) {
    uint64_t first = (lo - from) >> k, end = (hi - from + (uint64_t(1) << k) - 1) >> k;
    std::fill(out.begin() + static_cast<ptrdiff_t>(first), out.begin() + static_cast<ptrdiff_t>(end), value);
  });
  return out;
}

std::vector<uint64_t> ShadowMap::pages() const {
  std::vector<uint64_t> out;
  for (const auto& [first, run] : runs_)
    for (uint64_t p = first >> kPageGranuleBits; p <= (run.end - 1) >> kPageGranuleBits; ++p)
      if (out.empty() || out.back() < p) out.push_back(p);
  return out;
}

// ----------------------------------------------------------------------------- allocations

std::string_view memoryKindName(MemoryKind k) {
  switch (k) {
    case MemoryKind::Device: return "device";
    case MemoryKind::Pitched: return "pitched";
    case MemoryKind::Managed: return "managed";
    case MemoryKind::HostMapped: return "host-mapped";
    case MemoryKind::StreamOrdered: return "stream-ordered";
    case MemoryKind::HostRegistered: return "host-registered";
  }
  return "?";
}

namespace {
constexpr uint32_t kFirstIndirect = 256;
// Only even tags are handed out: bit 56 of a tagged pointer stays clear. Hopper's TMA
// descriptors hold 57-bit global addresses, and cuBLASLt encodes the descriptors of its
// tensor-core GEMMs itself (no driver call to untag in), keeping bits 0..56 of the pointer it
// was given: with bit 56 clear that is the raw address. (Seen on the H100 with cuBLAS 13.0: a
// descriptor made from 0x11007f58b1600000 held 0x01007f58b1600000 and the kernel faulted.)
constexpr unsigned kTagStep = 2;
// Freed direct indices wait until this many are queued before one is reused, so that a stale
// direct-tagged pointer keeps naming its freed entry for a while.
constexpr size_t kDirectQuarantine = 64;
// Freed indirect indices wait too (up to this many, at most an eighth of them): a
// stream-ordered free writes its entry at its point of its stream, which may lag far behind the
// host, and an index handed out again before that write ran would have the new allocation's
// entry overwritten by the old one's (two programs' streams run in no order with each other).
constexpr size_t kIndirectQuarantine = 1024;
// Freed allocations remembered after their address range was handed out again.
constexpr size_t kReplacedKept = 4096;
}  // namespace

Metadata::Metadata(MetadataConfig config) : config_(config), rng_(config.seed) {
  config_.bstCapacity = std::max<uint32_t>(config_.bstCapacity, kFirstIndirect + 1);
  bst_.assign(config_.bstCapacity, abi::BstEntry{});
  replayedIndex_.assign(config_.bstCapacity, false);
  // Entry 0: unknown memory, where everything passes but the null page (cucatch_abi.h).
  setEntry(0, abi::BstEntry{abi::kNullPageBytes, 0 - abi::kNullPageBytes, 0, abi::kBstLive, 0, 0, 0});
  // Direct tags are BST indices: the even ones of 16..254 (the odd entries stay unused).
  for (uint32_t i = kFirstIndirect - kTagStep; i >= abi::kFirstDirectTag; i -= kTagStep) freeDirect_.push_back(i);
  for (uint32_t i = config_.bstCapacity - 1; i >= kFirstIndirect; --i) freeIndirect_.push_back(i);
  indirectQuarantine_ = std::min(kIndirectQuarantine, freeIndirect_.size() / 8);
  capturedReserve_ = std::min<size_t>(4096, freeIndirect_.size() / 16);
}

void Metadata::setEntry(uint32_t index, const abi::BstEntry& e) {
  bst_[index] = e;
  dirtyEntries_.push_back(index);
}

std::vector<uint32_t> Metadata::takeDirtyEntries() {
  std::vector<uint32_t> out;
  out.swap(dirtyEntries_);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

uint32_t Metadata::takeIndex(bool direct, bool freshOnly) {
  // The last fresh indirect indices are kept for allocations made in a capture, which take no
  // others (onAllocate's `captured`): the rest take them only where nothing else is left.
  const size_t reserve = direct ? 0 : capturedReserve_;
  auto take = [&](std::vector<uint32_t>& fresh, std::deque<uint32_t>& quarantine, size_t keep) -> uint32_t {
    auto takeFresh = [&] {
      uint32_t i = fresh.back();
      fresh.pop_back();
      return i;
    };
    if (fresh.size() > reserve || (freshOnly && !fresh.empty())) return takeFresh();
    if (freshOnly) return 0u;
    if (quarantine.size() > keep) {
      uint32_t i = quarantine.front();
      quarantine.pop_front();
      // The freed allocation that held this index no longer maps to it: its whole extent, by
      // the bounds its entry still holds, also where a smaller allocation made at its base since
      // has taken its record's place and left the rest of its extent mapped to it.
      const abi::BstEntry& last = bst_[i];
      shadow_.unmapWhereMapped(last.base, last.size + config_.padding + config_.extentAlign, i);
      if (auto old = byBase_.find(last.base); old != byBase_.end() && old->second.bstIndex == i) old->second.bstIndex = 0;
      return i;
    }
    return fresh.empty() ? 0u : takeFresh();
  };
  return direct ? take(freeDirect_, quarantineDirect_, kDirectQuarantine)
                : take(freeIndirect_, quarantineIndirect_, indirectQuarantine_);
}

std::deque<uint32_t>& Metadata::quarantineOf(uint32_t index) {
  return index < kFirstIndirect ? quarantineDirect_ : quarantineIndirect_;
}

uint32_t Metadata::takeBackIndex(uint64_t base, uint64_t size, MemoryKind kind) {
  auto it = byBase_.find(base);
  if (it == byBase_.end()) return 0;
  const Allocation& freed = it->second;
  const uint32_t index = freed.bstIndex;
  if (freed.live || freed.size != size || freed.kind != kind || freed.tag != 0 || index < kFirstIndirect) return 0;
  // (Freed just now, as a rule: its index is at the back of the quarantine.)
  auto q = std::find(quarantineIndirect_.rbegin(), quarantineIndirect_.rend(), index);
  if (q == quarantineIndirect_.rend()) return 0;
  quarantineIndirect_.erase(std::next(q).base());
  return index;
}

uint64_t Metadata::onAllocate(uint64_t base, uint64_t size, MemoryKind kind, Backtrace backtrace, bool raw,
                              bool inFreedOrder, bool captured) {
  base = untag(base);
  // Addresses the driver gives an allocation are no untracked memory's any more: the program
  // released that by a call cucatch does not see (a graph's destruction; a graphics resource
  // unmapped, for which cucatch does not keep the range it had).
  endUntrackedOverlapping(base, size);
  // Host code reads managed, host-mapped and host-registered memory through the same pointer:
  // never tagged.
  bool taggable = config_.tags && !raw && kind != MemoryKind::Managed && kind != MemoryKind::HostMapped &&
                  kind != MemoryKind::HostRegistered;
  // A direct index (its tag), or one taken back; else (and always in a capture) an indirect
  // one, below.
  uint32_t index = 0;
  bool takenBack = false;  // (its mapping is on the device: no write where unchanged)
  if (!captured && taggable) {
    index = takeIndex(true);
  } else if (!captured && inFreedOrder) {
    index = takeBackIndex(base, size, kind);
    takenBack = index != 0;
  }
  uint8_t tag = taggable ? static_cast<uint8_t>(index) : 0;
  if (index == 0) {
    index = takeIndex(false, captured);
    tag = 0;
    if (index != 0 && taggable) {
      // A temporal tag that differs from the one this entry last carried, so that stale
      // pointers into its old allocation are told apart.
      std::uniform_int_distribution<int> pick((abi::kFirstTemporalTag + kTagStep - 1) / kTagStep,
                                              abi::kLastTemporalTag / kTagStep);
      do tag = static_cast<uint8_t>(pick(rng_) * kTagStep);
      while (tag == bst_[index].tag);
    }
  }
  Allocation a;
  a.id = nextId_++;
  a.base = base;
  a.size = size;
  a.bstIndex = index;
  a.tag = tag;
  a.kind = kind;
  a.byLibrary = raw;
  a.replayed = captured;
  if (captured && index != 0) replayedIndex_[index] = true;
  a.allocatedAt = std::move(backtrace);
  if (index != 0) {  // index 0: the table is full; the allocation goes untracked
    setEntry(index, abi::BstEntry{base, size, tag, abi::kBstLive, 0, static_cast<uint32_t>(a.id), 0});
    shadow_.map(base, size, index, takenBack);
    // Padding: a one-past-the-end pointer still finds its own allocation, unless the next
    // granule belongs to a live allocation already. Not for stream-ordered memory: its shadow
    // writes go into the allocating stream, the pool places the next allocation right after it
    // (from another stream, maybe), and two streams' writes to one granule land in no set order
    // (seen on the H100: a kernel found its freed neighbour's padding at its own base).
    bool ordered = kind == MemoryKind::StreamOrdered;
    uint64_t padding = ordered ? 0 : config_.padding;
    // Then up to the next extentAlign boundary: the driver places allocations there and rounds
    // their sizes up to it (cudaMalloc, pools, managed and mapped host memory: 512 bytes, H100,
    // driver 580), so those bytes are the allocation's block, and a page of small allocations
    // needs the device's shadow at no finer granule than that (cucatch_abi.h). For
    // stream-ordered memory only while every such base seen was aligned: should a pool place
    // one allocation inside another's last block, their writes would race as above. (This is
    // noticed at the first such base: where it lies in the block of an allocation made before
    // on another stream, those two may race once.) Not for registered host memory: the program
    // chose its address, and the bytes after it are whatever the host placed there.
    if (ordered && base % config_.extentAlign != 0) orderedExtentsAligned_ = false;
    bool driverPlaced = kind != MemoryKind::HostRegistered && (!ordered || orderedExtentsAligned_);
    auto roundUp = [](uint64_t x, uint64_t to) { return (x + to - 1) & ~(to - 1); };  // (a power of two)
    uint64_t extentEnd = roundUp(base + size + padding, driverPlaced ? config_.extentAlign : ShadowMap::kGranule);
    // (Where nothing is mapped, or what is is not live; and never into a live allocation the
    // shadow map does not hold, one the full table left untracked, nor into a reservation.)
    uint64_t at = roundUp(base + size, ShadowMap::kGranule);
    auto stopBefore = [&](uint64_t start) {
      if (start < extentEnd) extentEnd = std::max(at, start & ~(ShadowMap::kGranule - 1));
    };
    if (auto next = byBase_.lower_bound(base + 1); next != byBase_.end() && next->second.live) stopBefore(next->first);
    if (auto next = untracked_.lower_bound(base + 1); next != untracked_.end()) stopBefore(next->first);
    auto place = [&](uint64_t from, uint64_t to) {
      if (from < to) shadow_.map(from, to - from, index, takenBack);
    };
    for (const auto& part : shadow_.mapped(at, extentEnd)) {
      place(at, part.start);
      if (bst_[part.value].state != abi::kBstLive) place(part.start, part.end);
      at = part.end;
    }
    place(at, extentEnd);
  }
  if (index == 0) {
    // Untracked: nothing of a neighbour's extent may cover it (its pointers are untagged, and the
    // walk would find the neighbour and report its accesses as that one's overflow).
    shadow_.map(base, size, 0);
  }
  if (auto old = byBase_.find(base); old != byBase_.end()) {
    // Keep the freed allocation this one replaces, for reports of stale pointers into it.
    if (replaced_.size() < kReplacedKept) {
      if (replaced_.empty()) replaced_.reserve(kReplacedKept);  // (a slot stays where it is until overwritten)
      replaced_.push_back(std::move(old->second));
    } else {
      replaced_[replacedNext_] = std::move(old->second);
      replacedNext_ = (replacedNext_ + 1) % kReplacedKept;
    }
  }
  byBase_[base] = std::move(a);
  return tag ? withTag(base, tag) : base;
}

FreeResult Metadata::onFree(uint64_t pointer, Backtrace backtrace, bool captured) {
  FreeResult r;
  r.base = untag(pointer);
  auto it = byBase_.find(r.base);
  if (it == byBase_.end()) {
    r.status = FreeStatus::InvalidFree;
    r.allocation = find(r.base);  // an interior pointer, or nothing at all
    return r;
  }
  Allocation& a = it->second;
  r.allocation = &a;
  uint8_t tag = tagOf(pointer);
  if (!a.live && a.replayed && (tag == 0 || tag == a.tag)) {
    // A graph's allocation freed outside the graph after each launch (as CUDA allows where the
    // graph has no free of it): each launch made it live again on the device, by the writes
    // captured with it, where the host did not see it. Freed again; a real double free is the
    // driver's to refuse.
    a.freedAt = std::move(backtrace);
    if (a.bstIndex != 0) setEntry(a.bstIndex, bst_[a.bstIndex]);  // (freed, written again after the launch's)
    return r;
  }
  if (!a.live || (tag != 0 && tag != a.tag)) {
    r.status = FreeStatus::DoubleFree;  // freed already, or a stale pointer from before
    return r;
  }
  a.live = false;
  a.freedAt = std::move(backtrace);
  a.replayed = a.replayed || captured;
  if (a.replayed && a.bstIndex != 0) replayedIndex_[a.bstIndex] = true;
  if (a.bstIndex != 0) {
    abi::BstEntry e = bst_[a.bstIndex];
    e.state = abi::kBstFreed;
    setEntry(a.bstIndex, e);
    if (!a.replayed) quarantineOf(a.bstIndex).push_back(a.bstIndex);
    if (unmappedWhenFreed(a)) shadow_.unmapWhereMapped(a.base, a.size + config_.padding + config_.extentAlign, a.bstIndex);
  }
  return r;
}

bool Metadata::unmappedWhenFreed(const Allocation& a) const {
  // Its pointers are raw, so nothing but the walk would find its entry, freed; and a device
  // reading the host's pageable memory may read these addresses correctly after the free.
  return pageableAccess_ && (a.kind == MemoryKind::HostRegistered || a.kind == MemoryKind::HostMapped);
}

void Metadata::undoFree(uint64_t base) {
  auto it = byBase_.find(untag(base));
  if (it == byBase_.end() || it->second.live) return;
  Allocation& a = it->second;
  a.live = true;
  a.freedAt.clear();  // (`replayed` stays: a capture may hold this free's writes)
  if (a.bstIndex != 0) {
    abi::BstEntry e = bst_[a.bstIndex];
    e.state = abi::kBstLive;
    setEntry(a.bstIndex, e);
    auto& q = quarantineOf(a.bstIndex);
    q.erase(std::remove(q.begin(), q.end(), a.bstIndex), q.end());
    if (unmappedWhenFreed(a)) shadow_.map(a.base, a.size, a.bstIndex);  // (onFree unmapped it)
  }
}

void Metadata::onUntrackedReserve(uint64_t base, uint64_t size, bool endsAtFree) {
  base = untag(base);
  if (size == 0) return;
  // (What a freed allocation, or a neighbour's extent, left mapped there goes: the driver hands
  // the addresses of a freed cudaMalloc allocation to a reservation that asks for them, and
  // another process's memory opened by IPC to the addresses this one freed.)
  shadow_.map(base, size, 0);
  endUntrackedOverlapping(base, size);
  untracked_[base] = UntrackedRange{size, endsAtFree};
}

void Metadata::onUntrackedRelease(uint64_t address) {
  if (auto it = untrackedRangeAt(untag(address)); it != untracked_.end()) untracked_.erase(it);
}

std::map<uint64_t, Metadata::UntrackedRange>::const_iterator Metadata::untrackedRangeAt(uint64_t address) const {
  auto it = untracked_.upper_bound(address);
  if (it == untracked_.begin()) return untracked_.end();
  --it;
  return address - it->first < it->second.size ? it : untracked_.end();
}

void Metadata::endUntrackedOverlapping(uint64_t base, uint64_t size) {
  auto it = untracked_.upper_bound(base);
  if (it != untracked_.begin() && std::prev(it)->first + std::prev(it)->second.size > base) --it;
  while (it != untracked_.end() && it->first < base + size) it = untracked_.erase(it);
}

const Metadata::UntrackedRange* Metadata::untrackedAt(uint64_t address) const {
  auto it = untrackedRangeAt(untag(address));
  return it == untracked_.end() ? nullptr : &it->second;
}

const Allocation* Metadata::find(uint64_t address) const {
  address = untag(address);
  auto it = byBase_.upper_bound(address);
  if (it == byBase_.begin()) return nullptr;
  --it;
  return address < it->second.base + std::max<uint64_t>(it->second.size, 1) ? &it->second : nullptr;
}

const Allocation* Metadata::findNear(uint64_t address, uint8_t tag, uint64_t slack) const {
  address = untag(address);
  auto above = byBase_.upper_bound(address);
  if (above != byBase_.begin()) {
    const Allocation& below = std::prev(above)->second;
    uint64_t end = below.base + std::max<uint64_t>(below.size, 1);
    if (below.tag == tag && (address < end || address - end <= slack)) return &below;
  }
  if (above != byBase_.end() && above->second.tag == tag && above->second.base - address <= slack) return &above->second;
  return nullptr;
}

const Allocation* Metadata::byId(uint64_t id) const {
  for (const auto& [base, a] : byBase_)
    if (a.id == id) return &a;
  for (const auto& a : replaced_)
    if (a.id == id) return &a;
  return nullptr;
}

const Allocation* Metadata::findChecked(uint64_t base, uint64_t size, uint8_t tag) const {
  base = untag(base);
  auto matches = [&](const Allocation& a) { return a.base == base && a.size == size && a.tag == tag; };
  if (auto it = byBase_.find(base); it != byBase_.end() && matches(it->second)) return &it->second;
  const Allocation* newest = nullptr;
  for (const auto& a : replaced_)
    if (matches(a) && (!newest || a.id > newest->id)) newest = &a;
  if (newest) return newest;
  auto it = byBase_.find(base);  // same base, but size or tag differ: the best we know
  return it != byBase_.end() ? &it->second : nullptr;
}

std::vector<const Allocation*> Metadata::live() const {
  std::vector<const Allocation*> out;
  for (const auto& [base, a] : byBase_)
    if (a.live) out.push_back(&a);
  return out;
}

Metadata::DeviceView Metadata::deviceView(uint64_t pointer) const {
  uint8_t tag = tagOf(pointer);
  // (Instrumented code clears a frame tag's bits too, abi::kGenericAddressMask: the walk is of
  // the low 48 bits.)
  uint64_t address = pointer & abi::kGenericAddressMask;
  uint32_t index = 0;
  if (tag >= abi::kFirstDirectTag) index = tag;
  else if (address < ShadowMap::kAddressLimit) index = shadow_.lookup(address);
  abi::BstEntry e = bst_[index];
  // As the PTX decides it: the entry word against "live, with the tag compared" (the pointer's
  // temporal tag, or the entry's own for untagged and direct pointers).
  bool temporal = tag >= abi::kFirstTemporalTag && tag <= abi::kLastTemporalTag;
  uint8_t compared = temporal ? tag : e.tag;
  uint32_t verdict = (e.tag != compared || e.state != abi::kBstLive) ? abi::kMetaVerdictBad : 0;
  return {index, e, verdict};
}

std::optional<Metadata::DeviceView> Metadata::launchView(uint64_t pointer) const {
  DeviceView v = deviceView(pointer);
  if ((v.index != 0 && replayedIndex_[v.index]) || v.verdict != 0) return std::nullopt;
  return v;
}

}  // namespace cucatch::runtime
