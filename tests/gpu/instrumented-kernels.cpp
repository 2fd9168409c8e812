// GPU test of the instrumented PTX alone, with no cucatch runtime: the module is JIT-loaded
// through the driver API, and the test itself plays the runtime's part by filling the
// module's __cucatch_state with the base & size table and shadow map that the runtime's
// host-side metadata (src/runtime/Metadata) builds, and an error buffer, laid out as
// src/runtime/cucatch_abi.h says. It checks that:
//   1. with the state left zero (no runtime), instrumented kernels run and compute exactly
//      what they should;
//   2. with metadata, in-bounds work reports nothing and computes the same;
//   3. an access one past the end is reported, through a tagged pointer (direct BST index)
//      and through an untagged one (shadow map), with the right site, address and size; each
//      in its own launch, since in continue mode a thread ends at its first violation;
//   4. a freed allocation is reported as use-after-free (the verdict of its base);
//   5. in abort mode the kernel traps and the record survives in host-mapped memory.
// Usage: instrumented-kernels SAXPY_INSTRUMENTED.ptx
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <map>

#include "runtime/Metadata.h"
#include "runtime/cucatch_abi.h"

namespace abi = cucatch::abi;

static int failures = 0;
#define CU(call)                                                                \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* s_ = nullptr;                                                 \
      cuGetErrorString(r_, &s_);                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, s_); \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)
#define EXPECT(cond, ...)                                  \
  do {                                                     \
    if (cond) {                                            \
      std::printf("ok   " __VA_ARGS__);                    \
    } else {                                               \
      std::printf("FAIL " __VA_ARGS__);                    \
      ++failures;                                          \
    }                                                      \
    std::printf("\n");                                     \
  } while (0)

// The smallest stand-in for the cucatch runtime: the host-side metadata of
// src/runtime/Metadata (the runtime's own) uploaded the way the ABI lays it out.
struct Runtime {
  cucatch::runtime::Metadata meta;
  CUdeviceptr bst = 0, root = 0, identity = 0, state = 0;
  std::map<uint64_t, CUdeviceptr> directories;  // root slot -> its device directory
  std::vector<CUdeviceptr> leaves;              // (never freed: the test is short)
  abi::ErrorBufferHeader* host = nullptr;
  CUdeviceptr errors = 0;
  static constexpr size_t kRootEntries = size_t(1) << abi::kShadowRootBits;
  static constexpr size_t kDirEntries = size_t(1) << abi::kShadowDirBits;
  uint64_t uniform(uint32_t value) const {
    return (uint64_t(abi::kShadowPageShift) << abi::kShadowEntryShiftBit) | (identity + 4 * uint64_t(value));
  }

  void init(CUmodule m) {
    size_t bytes = 0;
    CU(cuModuleGetGlobal(&state, &bytes, m, CUCATCH_STATE_SYMBOL));
    if (bytes != abi::kStateBytes) std::exit(3);
    CU(cuMemAlloc(&bst, meta.bst().size() * sizeof(abi::BstEntry)));
    std::vector<uint32_t> iota(meta.bst().size());
    for (uint32_t i = 0; i < iota.size(); ++i) iota[i] = i;
    CU(cuMemAlloc(&identity, iota.size() * 4));
    CU(cuMemcpyHtoD(identity, iota.data(), iota.size() * 4));
    CU(cuMemAlloc(&root, kRootEntries * 8));
    size_t errBytes = abi::kErrorHeaderBytes + 16 * abi::kErrorRecordBytes;
    CU(cuMemHostAlloc(reinterpret_cast<void**>(&host), errBytes, CU_MEMHOSTALLOC_DEVICEMAP));
    std::memset(host, 0, errBytes);
    host->capacity = 16;
    CU(cuMemHostGetDevicePointer(&errors, host, 0));
  }
  // The whole shadow map again, each page at the granule its contents allow (the runtime's
  // DeviceTables keeps one up to date instead; this is the layout alone).
  void publish(uint32_t flags) {
    CU(cuMemcpyHtoD(bst, meta.bst().data(), meta.bst().size() * sizeof(abi::BstEntry)));
    meta.shadow().takeWrites();
    std::map<uint64_t, std::vector<uint64_t>> dirs;
    for (uint64_t page : meta.shadow().pages()) {
      auto& dir = dirs[page >> abi::kShadowDirBits];
      if (dir.empty()) dir.assign(kDirEntries, uniform(0));
      unsigned shift = meta.shadow().granuleShift(page);
      uint64_t& entry = dir[page & (kDirEntries - 1)];
      if (shift == abi::kShadowPageShift) {
        entry = uniform(meta.shadow().lookup(page << abi::kShadowPageShift));
        continue;
      }
      std::vector<uint32_t> leaf = meta.shadow().leaf(page, shift);
      CUdeviceptr table = 0;
      CU(cuMemAlloc(&table, leaf.size() * 4));
      CU(cuMemcpyHtoD(table, leaf.data(), leaf.size() * 4));
      leaves.push_back(table);
      entry = (uint64_t(shift) << abi::kShadowEntryShiftBit) | table;
    }
    std::vector<uint64_t> rootHost(kRootEntries);
    CUdeviceptr empty = 0;
    for (size_t slot = 0; slot < kRootEntries; ++slot) {
      auto it = dirs.find(slot);
      if (it == dirs.end()) {
        if (!empty) {
          std::vector<uint64_t> unmapped(kDirEntries, uniform(0));
          CU(cuMemAlloc(&empty, kDirEntries * 8));
          CU(cuMemcpyHtoD(empty, unmapped.data(), kDirEntries * 8));
          leaves.push_back(empty);
        }
        rootHost[slot] = empty;
        continue;
      }
      if (!directories.count(slot)) CU(cuMemAlloc(&directories[slot], kDirEntries * 8));
      CU(cuMemcpyHtoD(directories[slot], it->second.data(), kDirEntries * 8));
      rootHost[slot] = directories[slot];
    }
    CU(cuMemcpyHtoD(root, rootHost.data(), kRootEntries * 8));
    abi::ModuleState s{};
    s.bst = bst;
    s.bstCapacity = meta.bst().size();
    s.shadowRoot = root;
    s.errorBuffer = errors;
    s.flags = flags;
    CU(cuMemcpyHtoD(state, &s, sizeof s));
    host->count = 0;
  }
  const abi::ErrorRecord& record(unsigned i) const {
    return reinterpret_cast<const abi::ErrorRecord*>(reinterpret_cast<const char*>(host) + abi::kErrorHeaderBytes)[i];
  }
};

static CUresult saxpy(CUfunction f, int n, float a, uint64_t x, uint64_t y) {
  void* args[] = {&n, &a, &x, &y};
  CUresult r = cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
  return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SAXPY_INSTRUMENTED.ptx\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string ptx = ss.str();
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  char name[256];
  CU(cuDeviceGetName(name, sizeof name, dev));
  std::printf("device: %s\n", name);
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CU(cuModuleLoadData(&mod, ptx.c_str()));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "_Z5saxpyifPKfPf"));

  const int n = 1 << 20;
  std::vector<float> hx(n), hy(n), expect(n), out(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = 0.5f * (i % 1000);
    hy[i] = 1.0f + (i % 7);
    expect[i] = 3.0f * hx[i] + hy[i];
  }
  CUdeviceptr x, y;
  CU(cuMemAlloc(&x, n * 4));
  CU(cuMemAlloc(&y, n * 4));
  auto reset = [&] {
    CU(cuMemcpyHtoD(x, hx.data(), n * 4));
    CU(cuMemcpyHtoD(y, hy.data(), n * 4));
  };

  // 1. No runtime: the state is all zero and the kernel runs unchecked.
  reset();
  CU(saxpy(f, n, 3.0f, x, y));
  CU(cuMemcpyDtoH(out.data(), y, n * 4));
  EXPECT(std::memcmp(out.data(), expect.data(), n * 4) == 0, "no runtime: saxpy over %d floats is exact", n);

  Runtime rt;
  rt.init(mod);
  uint64_t xTagged = rt.meta.onAllocate(x, n * 4ull, cucatch::runtime::MemoryKind::Device);
  uint64_t yTagged = rt.meta.onAllocate(y, n * 4ull, cucatch::runtime::MemoryKind::Device);
  const uint8_t xTag = cucatch::runtime::tagOf(xTagged);
  // x goes in tagged (direct BST index); y untagged, so its metadata comes from the shadow map.

  // 2. In bounds, continue mode: silent and exact.
  rt.publish(abi::kFlagContinue);
  reset();
  CU(saxpy(f, n, 3.0f, xTagged, y));
  CU(cuMemcpyDtoH(out.data(), y, n * 4));
  EXPECT(rt.host->count == 0 && std::memcmp(out.data(), expect.data(), n * 4) == 0,
         "in bounds with metadata: %u reports, result exact", rt.host->count);

  // 3. One past the end, n + 1 threads doing work: first of x (tagged) with y's stand-in z one
  // element longer, then of y (untagged) with x's stand-in z (tagged). A thread ends at its first
  // violation in continue mode, so each launch has one array that overflows.
  CUdeviceptr z;
  CU(cuMemAlloc(&z, (n + 1) * 4ull));
  uint64_t zTagged = rt.meta.onAllocate(z, (n + 1) * 4ull, cucatch::runtime::MemoryKind::Device);
  auto onePastTheEnd = [&](uint64_t xArg, uint64_t yArg, CUdeviceptr base, uint8_t tag, const char* what) {
    rt.publish(abi::kFlagContinue);
    reset();
    CU(saxpy(f, n + 1, 3.0f, xArg, yArg));
    unsigned count = rt.host->count;
    bool seen = false;
    for (unsigned i = 0; i < count && i < 16; ++i) {
      const auto& r = rt.record(i);
      seen |= r.address == base + n * 4ull && r.base == base && r.size == n * 4ull && (r.info >> 8) == 4 &&
              (r.meta >> abi::kMetaPointerTagShift) == tag;
      std::printf("     record %u: site %u info 0x%x address 0x%llx base 0x%llx size %llu meta 0x%x tag %u block %u thread %u\n", i,
                  r.site, r.info, (unsigned long long)r.address, (unsigned long long)r.base,
                  (unsigned long long)r.size, r.meta & 0xFFFFFF, r.meta >> abi::kMetaPointerTagShift, r.block[0], r.thread[0]);
    }
    EXPECT(count == 1 && seen, "one past the end of %s: %u report(s), %s", what, count, seen ? "seen" : "MISSING");
  };
  onePastTheEnd(xTagged, z, x, xTag, "tagged x");
  onePastTheEnd(zTagged, y, y, 0, "untagged y");

  // 4. y freed: every access through it is a use-after-free.
  if (rt.meta.onFree(yTagged).status != cucatch::runtime::FreeStatus::Ok) std::exit(4);
  rt.publish(abi::kFlagContinue);
  reset();
  CU(saxpy(f, 256, 3.0f, xTagged, y));
  unsigned count = rt.host->count;
  bool uaf = count > 0 && (rt.record(0).meta & abi::kMetaVerdictMask) == abi::kMetaVerdictBad &&
             ((rt.record(0).meta >> abi::kMetaStateShift) & 0xFF) == abi::kBstFreed;
  EXPECT(uaf, "use after free: %u reports, first verdict %u", count, count ? rt.record(0).meta & 0xff : 0);
  rt.meta.onAllocate(y, n * 4ull, cucatch::runtime::MemoryKind::Device);  // y is live again

  // 5. Abort mode: the kernel traps; the record is in host memory all the same.
  rt.publish(0);
  reset();
  CUresult r = saxpy(f, n + 1, 3.0f, xTagged, y);
  EXPECT(r != CUDA_SUCCESS && rt.host->count >= 1, "abort mode: launch ended with error %d, %u record(s) kept",
         (int)r, rt.host->count);

  std::printf("%d passed, %d failed\n", 6 - failures, failures);
  return failures ? 1 : 0;
}
