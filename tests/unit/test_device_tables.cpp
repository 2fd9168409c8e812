// DeviceTables against a driver simulated on the host: device memory is a map of 32-bit words,
// and every enqueued write lands in it at once, in the order enqueued (one stream, as a stream
// runs them). What is checked is the order of the writes an update enqueues.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>

#include "runtime/DeviceTables.h"
#include "runtime/Metadata.h"

using namespace cucatch;
using namespace cucatch::runtime;

namespace {

// The simulated device: words by address, a bump allocator, and which calls were made.
struct FakeDevice {
  std::map<uint64_t, uint32_t> words;
  uint64_t next = 0x700000000000;
  int batches = 0, memsets = 0;
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
    *p = device->next;
    device->next += (bytes + 0xFFFF) & ~size_t(0xFFFF);
    return CUDA_SUCCESS;
  };
  d.cuMemcpyHtoDAsync = [](CUdeviceptr, const void*, size_t, CUstream) { return CUDA_SUCCESS; };
  d.cuMemsetD32Async = [](CUdeviceptr at, unsigned value, size_t count, CUstream) {
    ++device->memsets;
    setWords(at, value, count);
    return CUDA_SUCCESS;
  };
  d.cuMemsetD2D32Async = [](CUdeviceptr, size_t, unsigned, size_t, size_t, CUstream) { return CUDA_SUCCESS; };
  d.cuMemHostRegister = [](void*, size_t, unsigned) { return CUDA_SUCCESS; };
  d.cuMemHostGetDevicePointer = [](CUdeviceptr* p, void* h, unsigned) {
    *p = reinterpret_cast<CUdeviceptr>(h);
    return CUDA_SUCCESS;
  };
  d.cuStreamSynchronize = [](CUstream) { return CUDA_SUCCESS; };
  d.cuStreamBatchMemOp = [](CUstream, unsigned count, CUstreamBatchMemOpParams* ops, unsigned) {
    if (count >= 256) return CUDA_ERROR_INVALID_VALUE;  // "must be less than 256"
    ++device->batches;
    for (unsigned i = 0; i < count; ++i) setWords(ops[i].writeValue.address, ops[i].writeValue.value, 1);
    return CUDA_SUCCESS;
  };
  return d;
}

// DeviceTables made over a fresh simulated device, and an ordered (in-stream) update of them.
struct Simulated {
  FakeDevice fake;
  Driver driver = fakeDriver();
  Metadata metadata;
  std::unique_ptr<DeviceTables> tables;
  Simulated() {
    device = &fake;
    tables = DeviceTables::create(driver, nullptr, 1, 0, true, metadata, 16);
  }
  ~Simulated() { device = nullptr; }
  void applyInStream(const std::vector<ShadowMap::Write>& writes) {
    tables->apply(metadata, {}, writes, DeviceTables::Order{DeviceTables::Order::InStream, nullptr});
  }
};

}  // namespace

TEST_CASE("an ordered update writes the shadow map in the order its writes were taken", "[runtime]") {
  // A freed allocation's granules unmapped (a short write, batched), then mapped to the
  // allocation that reuses its address (a long one, a memset): the device must end with the
  // second. (Batching the short words after the memsets once left the reused address unmapped.)
  Simulated sim;
  REQUIRE(sim.tables);
  uint64_t slot = 0x3f8000;
  sim.applyInStream({{slot, 0, 2, 0}, {slot, 0, 32, 256}, {slot, 40, 1, 7}});
  // The second-level table of the slot is the one allocated last; find it by a word written.
  uint64_t table = 0;
  for (const auto& [address, value] : sim.fake.words)
    if (value == 7) table = address - 40 * 4;
  REQUIRE(table != 0);
  for (uint32_t k = 0; k < 32; ++k) {
    INFO("granule " << k);
    CHECK(sim.fake.words[table + 4 * k] == 256);
  }
  CHECK(sim.fake.batches >= 1);
}

TEST_CASE("an ordered update of many words goes out in batches the driver takes", "[runtime]") {
  // More than 255 short writes: several batches, none of 256 operations (the driver refuses
  // those), every word written.
  Simulated sim;
  REQUIRE(sim.tables);
  std::vector<ShadowMap::Write> writes;
  for (uint32_t k = 0; k < 600; ++k) writes.push_back({0x3f8000, 2 * k, 1, 1000 + k});
  int memsetsBefore = sim.fake.memsets;
  sim.applyInStream(writes);
  size_t found = 0;
  for (const auto& [address, value] : sim.fake.words) found += value >= 1000 && value < 1600;
  CHECK(found == 600);
  CHECK(sim.fake.batches == 3);
  CHECK(sim.fake.memsets - memsetsBefore == 3);  // the new second-level table: its clearing, its first-level entry's halves
}
