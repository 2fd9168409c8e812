// GPU test of the instrumented PTX alone, with no cucatch runtime: the module is JIT-loaded
// through the driver API, and the test itself plays the runtime's part by filling the
// module's __cucatch_state with a base & size table, a shadow map and an error buffer laid
// out as src/runtime/cucatch_abi.h says. It checks that:
//   1. with the state left zero (no runtime), instrumented kernels run and compute exactly
//      what they should;
//   2. with metadata, in-bounds work reports nothing and computes the same;
//   3. an access one past the end is reported, through a tagged pointer (direct BST index)
//      and through an untagged one (shadow map), with the right site, address and size;
//   4. a freed allocation is reported as use-after-free (the verdict of its base);
//   5. in abort mode the kernel traps and the record survives in host-mapped memory.
// Usage: instrumented-kernels SAXPY_INSTRUMENTED.ptx
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

struct Runtime {  // the smallest stand-in for the cucatch runtime
  CUdeviceptr bst = 0, l1 = 0, zeroL2 = 0, l2 = 0, state = 0;
  abi::ErrorBufferHeader* host = nullptr;
  CUdeviceptr errors = 0;
  std::vector<abi::BstEntry> entries = std::vector<abi::BstEntry>(256);
  std::vector<uint64_t> l1Host = std::vector<uint64_t>(size_t(1) << abi::kShadowL1Bits);

  void init(CUmodule m) {
    size_t bytes = 0;
    CU(cuModuleGetGlobal(&state, &bytes, m, CUCATCH_STATE_SYMBOL));
    if (bytes != abi::kStateBytes) std::exit(3);
    CU(cuMemAlloc(&bst, entries.size() * sizeof(abi::BstEntry)));
    size_t l2Bytes = (size_t(1) << abi::kShadowL2Bits) * 4;
    CU(cuMemAlloc(&zeroL2, l2Bytes));
    CU(cuMemsetD8(zeroL2, 0, l2Bytes));
    CU(cuMemAlloc(&l2, l2Bytes));
    CU(cuMemsetD8(l2, 0, l2Bytes));
    CU(cuMemAlloc(&l1, l1Host.size() * 8));
    for (auto& slot : l1Host) slot = zeroL2;  // the distinguished all-zero secondary
    entries[0] = {0, UINT64_MAX, 0, abi::kBstLive, 0, 0, 0};  // unknown: everything passes
    size_t errBytes = abi::kErrorHeaderBytes + 16 * abi::kErrorRecordBytes;
    CU(cuMemHostAlloc(reinterpret_cast<void**>(&host), errBytes, CU_MEMHOSTALLOC_DEVICEMAP));
    std::memset(host, 0, errBytes);
    host->capacity = 16;
    CU(cuMemHostGetDevicePointer(&errors, host, 0));
  }
  // Register [base, base+size) under BST index `index`, in the shadow map too.
  void track(uint32_t index, CUdeviceptr base, uint64_t size, uint8_t tag) {
    entries[index] = {base, size, tag, abi::kBstLive, 0, index, 0};
    uint64_t first = base >> abi::kShadowGranuleShift, last = (base + size + 7) >> abi::kShadowGranuleShift;
    std::vector<uint32_t> granules;
    uint64_t slot = base >> abi::kShadowL1Shift;
    l1Host[slot] = l2;  // one second-level table is enough for this test's allocations
    uint64_t l2First = first & ((1u << abi::kShadowL2Bits) - 1);
    granules.assign(last - first + 1, index);
    CU(cuMemcpyHtoD(l2 + l2First * 4, granules.data(), granules.size() * 4));
  }
  void publish(uint32_t flags) {
    CU(cuMemcpyHtoD(bst, entries.data(), entries.size() * sizeof(abi::BstEntry)));
    CU(cuMemcpyHtoD(l1, l1Host.data(), l1Host.size() * 8));
    abi::ModuleState s{};
    s.bst = bst;
    s.bstCapacity = entries.size();
    s.shadowL1 = l1;
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
  const uint8_t xTag = 16;  // direct BST index
  rt.track(xTag, x, n * 4ull, xTag);
  rt.track(17, y, n * 4ull, 0);  // untagged: found through the shadow map
  uint64_t xTagged = x | (uint64_t(xTag) << abi::kTagShift);

  // 2. In bounds, continue mode: silent and exact.
  rt.publish(abi::kFlagContinue);
  reset();
  CU(saxpy(f, n, 3.0f, xTagged, y));
  CU(cuMemcpyDtoH(out.data(), y, n * 4));
  EXPECT(rt.host->count == 0 && std::memcmp(out.data(), expect.data(), n * 4) == 0,
         "in bounds with metadata: %u reports, result exact", rt.host->count);

  // 3. One past the end of both arrays (n + 1 threads do work).
  rt.publish(abi::kFlagContinue);
  reset();
  CU(saxpy(f, n + 1, 3.0f, xTagged, y));
  unsigned count = rt.host->count;
  bool sawX = false, sawY = false;
  for (unsigned i = 0; i < count && i < 16; ++i) {
    const auto& r = rt.record(i);
    if (r.address == x + n * 4ull && r.base == x && r.size == n * 4ull && (r.info >> 8) == 4 && r.pointerTag == xTag)
      sawX = true;
    if (r.address == y + n * 4ull && r.base == y && r.size == n * 4ull && (r.info >> 8) == 4 && r.pointerTag == 0)
      sawY = true;
    std::printf("     record %u: site %u info 0x%x address 0x%llx base 0x%llx size %llu meta 0x%x tag %u block %u thread %u\n", i,
                r.site, r.info, (unsigned long long)r.address, (unsigned long long)r.base,
                (unsigned long long)r.size, r.meta, r.pointerTag, r.block[0], r.thread[0]);
  }
  EXPECT(count >= 2 && sawX && sawY, "one past the end: %u reports, tagged x %s, untagged y %s", count,
         sawX ? "seen" : "MISSING", sawY ? "seen" : "MISSING");

  // 4. y freed: every access through it is a use-after-free.
  rt.entries[17].state = abi::kBstFreed;
  rt.publish(abi::kFlagContinue);
  reset();
  CU(saxpy(f, 256, 3.0f, xTagged, y));
  count = rt.host->count;
  bool uaf = count > 0 && (rt.record(0).meta & abi::kMetaVerdictMask) == abi::kErrorUseAfterFree;
  EXPECT(uaf, "use after free: %u reports, first verdict %u", count, count ? rt.record(0).meta & 0xff : 0);
  rt.entries[17].state = abi::kBstLive;

  // 5. Abort mode: the kernel traps; the record is in host memory all the same.
  rt.publish(0);
  reset();
  CUresult r = saxpy(f, n + 1, 3.0f, xTagged, y);
  EXPECT(r != CUDA_SUCCESS && rt.host->count >= 1, "abort mode: launch ended with error %d, %u record(s) kept",
         (int)r, rt.host->count);

  std::printf("%d passed, %d failed\n", 5 - failures, failures);
  return failures ? 1 : 0;
}
