// How libcucatch gets between the program and the CUDA driver (see docs/design.md, "Runtime").
//
// The CUDA runtime (static or shared libcudart, and everything built on it: cuBLAS, Thrust,
// PyTorch) never calls driver symbols by name. It looks up cuGetProcAddress with dlsym and then
// resolves every entry point through it. So libcucatch defines `dlsym`, hands out its own
// cuGetProcAddress, and that returns a wrapper for every entry point listed below.
//
// One entry point name can resolve to several real functions (per-thread default-stream
// variants, ABI versions); each hook therefore has a few slots, and every slot a trampoline that
// calls the real function it was handed out for.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <optional>
#include <functional>
#include <unordered_map>
#include <vector>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include "runtime/Libraries.h"
#include "runtime/Rebind.h"
#include "runtime/Runtime.h"

using cucatch::runtime::LaunchArguments;
using cucatch::runtime::MemoryKind;
using cucatch::runtime::Runtime;

namespace {

Runtime& rt() { return Runtime::get(); }
CUdeviceptr strip(CUdeviceptr p) { return Runtime::strip(p); }

constexpr size_t kSlots = 4;

struct HookEntry {
  const char* name;
  // The ABI versions (cuGetProcAddress's cudaVersion) whose signature the hook has; requests
  // outside get the real function.
  int minVersion, maxVersion;
  // The names libcuda exports the hooked function under, for lookups by symbol name (dlsym):
  // cuda.h's name for that ABI version (cuMemAlloc_v2), and for hooks whose signature never
  // changed also the plain one (cuStreamWaitValue32 beside cuStreamWaitValue32_v2).
  const char* exported;
  const char* alsoExported;
  std::atomic<void*>* slots;
  void* const* trampolines;
};

#define CUCATCH_STRINGIFY(X) #X
#define CUCATCH_EXPANDED_NAME(X) CUCATCH_STRINGIFY(X)  // cuda.h's #define applied

// The driver's own definition of `symbol`, for the entry points libcucatch exports (below).
void* exportedReal(const char* symbol);
void rebindNewObjects();

// The code that called the hook running on this thread (a return address in the program or
// library that called the driver): JIT mode leaves the CUDA libraries' own modules alone, also
// those they load from memory of their own.
thread_local const void* tHookCaller = nullptr;

// The wrapped entry points after which no kernel can be ordered that was not before: the
// stream-ordered allocations and frees themselves, the launches (Runtime::launching orders them
// after the pending changes, with their stream) and pure queries. Every other wrapped call first
// enqueues the stream-ordered table changes still pending (Runtime::beforeDriverCall).
constexpr bool keepsPending(std::string_view name) {
  constexpr std::string_view names[] = {
      "cuMemAllocAsync", "cuMemAllocFromPoolAsync", "cuMemFreeAsync", "cuLaunchKernel", "cuLaunchKernelEx",
      "cuLaunchCooperativeKernel", "cuGraphLaunch", "cuGetExportTable",
      "cuCtxGetLimit", "cuMemGetAddressRange", "cuPointerGetAttribute", "cuPointerGetAttributes",
      "cuMemRangeGetAttribute", "cuMemRangeGetAttributes", "cuStreamGetAttribute", "cuGraphKernelNodeGetAttribute",
      "cuGraphMemcpyNodeGetParams", "cuGraphMemsetNodeGetParams", "cuGraphMemFreeNodeGetParams",
      "cuTexObjectGetResourceDesc"};
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

template <class Self, class Fn>
struct Hook;
template <class Self, class R, class... A>
struct Hook<Self, R (*)(A...)> {
  using Fn = R (*)(A...);
  static constexpr int kMinVersion = 0;
  static constexpr int kMaxVersion = 1 << 30;
  static inline std::atomic<void*> slots[kSlots];
  template <size_t I>
  static R trampoline(A... a) {
    tHookCaller = __builtin_return_address(0);
    if constexpr (!keepsPending(Self::kName)) Runtime::get().beforeDriverCall();
    return Self::run(reinterpret_cast<Fn>(slots[I].load(std::memory_order_acquire)), a...);
  }
  static inline void* const trampolines[kSlots] = {
      reinterpret_cast<void*>(&trampoline<0>), reinterpret_cast<void*>(&trampoline<1>),
      reinterpret_cast<void*>(&trampoline<2>), reinterpret_cast<void*>(&trampoline<3>)};
  // What a program that calls `Symbol` by name reaches (through the stub exported under that
  // name): the hook, bound to libcuda's definition of the same name.
  template <const char* Symbol>
  static R exported(A... a) {
    static const Fn real = [] {
      Runtime::get().log(fmt::format("{} called by symbol: through cucatch", Symbol));
      return reinterpret_cast<Fn>(exportedReal(Symbol));
    }();
    if (!real) return CUDA_ERROR_NOT_FOUND;
    tHookCaller = __builtin_return_address(0);
    if constexpr (!keepsPending(Self::kName)) Runtime::get().beforeDriverCall();
    return Self::run(real, a...);
  }
  static HookEntry entry() {
    return {Self::kName, Self::kMinVersion, Self::kMaxVersion, Self::kExported, Self::kAlsoExported, slots, trampolines};
  }
};

// HOOK(cuX)(Fn real, <cuX's parameters>) { ... } };
#define HOOK(NAME)                                                      \
  struct Hook_##NAME : Hook<Hook_##NAME, decltype(&::NAME)> {           \
    static constexpr const char* kName = #NAME;                         \
    static constexpr const char* kExported = CUCATCH_EXPANDED_NAME(NAME); \
    static constexpr const char* kAlsoExported = #NAME;                 \
    static CUresult run
#define HOOK_SINCE(NAME, VERSION)                                       \
  struct Hook_##NAME : Hook<Hook_##NAME, decltype(&::NAME)> {           \
    static constexpr const char* kName = #NAME;                         \
    static constexpr const char* kExported = CUCATCH_EXPANDED_NAME(NAME); \
    static constexpr const char* kAlsoExported = nullptr;               \
    static constexpr int kMinVersion = VERSION;                         \
    static CUresult run
// The newer function REAL that cuGetProcAddress hands out for NAME from ABI version VERSION on,
// where cuda.h keeps NAME for the older signature (CUDA 13's cuCtxSynchronize_v2, which takes
// the context to wait for). Exported as REAL.
#define HOOK_NEWER(NAME, VERSION, REAL)                                 \
  struct Hook_##REAL : Hook<Hook_##REAL, decltype(&::REAL)> {           \
    static constexpr const char* kName = #NAME;                         \
    static constexpr const char* kExported = #REAL;                     \
    static constexpr const char* kAlsoExported = nullptr;               \
    static constexpr int kMinVersion = VERSION;                         \
    static CUresult run
// An older signature of NAME, for requests of ABI versions before VERSION (exported under the
// plain name, the newer one under NAME_v2).
#define HOOK_BEFORE(NAME, VERSION, SIGNATURE)                           \
  struct Hook_##NAME##_old : Hook<Hook_##NAME##_old, SIGNATURE> {       \
    static constexpr const char* kName = #NAME;                         \
    static constexpr const char* kExported = #NAME;                     \
    static constexpr const char* kAlsoExported = nullptr;               \
    static constexpr int kMaxVersion = VERSION;                         \
    static CUresult run

// ---- allocations and frees ------------------------------------------------------------------

HOOK_SINCE(cuMemAlloc, 3020)(Fn real, CUdeviceptr* dptr, size_t bytes) {
  rebindNewObjects();
  CUresult r = real(dptr, bytes);
  if (r == CUDA_SUCCESS) *dptr = rt().allocated(*dptr, bytes, MemoryKind::Device);
  return rt().after(r);
}};
HOOK_SINCE(cuMemAllocPitch, 3020)(Fn real, CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height, unsigned elementSize) {
  CUresult r = real(dptr, pitch, width, height, elementSize);
  if (r == CUDA_SUCCESS) *dptr = rt().allocated(*dptr, *pitch * height, MemoryKind::Pitched);
  return rt().after(r);
}};
HOOK(cuMemAllocManaged)(Fn real, CUdeviceptr* dptr, size_t bytes, unsigned flags) {
  CUresult r = real(dptr, bytes, flags);
  if (r == CUDA_SUCCESS) *dptr = rt().allocated(*dptr, bytes, MemoryKind::Managed);
  return rt().after(r);
}};
HOOK(cuMemHostAlloc)(Fn real, void** p, size_t bytes, unsigned flags) {
  // With unified addressing every pinned allocation is reachable from kernels at its host
  // address: tracked (untagged, since host code uses the same pointer).
  CUresult r = real(p, bytes, flags);
  if (r == CUDA_SUCCESS) rt().allocated(reinterpret_cast<CUdeviceptr>(*p), bytes, MemoryKind::HostMapped);
  return rt().after(r);
}};
HOOK_SINCE(cuMemAllocHost, 3020)(Fn real, void** p, size_t bytes) {
  CUresult r = real(p, bytes);
  if (r == CUDA_SUCCESS) rt().allocated(reinterpret_cast<CUdeviceptr>(*p), bytes, MemoryKind::HostMapped);
  return rt().after(r);
}};
HOOK_SINCE(cuMemAllocAsync, 11020)(Fn real, CUdeviceptr* dptr, size_t bytes, CUstream stream) {
  CUresult r = real(dptr, bytes, stream);
  if (r == CUDA_SUCCESS) *dptr = rt().allocated(*dptr, bytes, MemoryKind::StreamOrdered, stream, true);
  return rt().after(r);
}};
HOOK_SINCE(cuMemAllocFromPoolAsync, 11020)(Fn real, CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool, CUstream stream) {
  CUresult r = real(dptr, bytes, pool, stream);
  if (r == CUDA_SUCCESS) *dptr = rt().allocated(*dptr, bytes, MemoryKind::StreamOrdered, stream, true);
  return rt().after(r);
}};
HOOK_SINCE(cuMemFree, 3020)(Fn real, CUdeviceptr p) {
  return rt().after(rt().free(p, [&](CUdeviceptr base) { return real(base); }));
}};
HOOK(cuMemFreeHost)(Fn real, void* p) {
  return rt().after(rt().free(reinterpret_cast<CUdeviceptr>(p), [&](CUdeviceptr) { return real(p); }));
}};
HOOK_SINCE(cuMemFreeAsync, 11020)(Fn real, CUdeviceptr p, CUstream stream) {
  return rt().after(rt().free(p, [&](CUdeviceptr base) { return real(base, stream); }, stream, true));
}};

// ---- contexts: when one ends, what its kernels recorded is reported and its tables dropped ----

HOOK(cuCtxDestroy)(Fn real, CUcontext ctx) {  // every version has this signature
  rt().contextEnding(ctx);
  return real(ctx);
}};
HOOK(cuDevicePrimaryCtxReset)(Fn real, CUdevice device) {
  CUresult r = real(device);
  if (r == CUDA_SUCCESS) rt().primaryContextEnded(device);
  return r;
}};
HOOK(cuDevicePrimaryCtxRelease)(Fn real, CUdevice device) {
  CUresult r = real(device);
  if (r == CUDA_SUCCESS) rt().primaryContextEnded(device);  // if that was its last reference
  return r;
}};

// ---- modules and launches ---------------------------------------------------------------------

// Module loads: PTX is instrumented (in JIT mode, a fatbinary's PTX too) and handed to the
// driver in place of the image (JitLoader.h).
HOOK(cuModuleLoadData)(Fn real, CUmodule* module, const void* image) {
  const void* instrumented = rt().imageToLoad(image, tHookCaller);
  return real(module, instrumented ? instrumented : image);
}};
HOOK(cuModuleLoadDataEx)(Fn real, CUmodule* module, const void* image, unsigned n, CUjit_option* options,
                         void** values) {
  const void* instrumented = rt().imageToLoad(image, tHookCaller);
  return real(module, instrumented ? instrumented : image, n, options, values);
}};
HOOK(cuModuleLoadFatBinary)(Fn real, CUmodule* module, const void* fatbinary) {
  const void* instrumented = rt().imageToLoad(fatbinary, tHookCaller);
  // PTX goes in through cuModuleLoadData: this entry point takes fatbinaries only.
  if (instrumented) return rt().driver().cuModuleLoadData(module, instrumented);
  return real(module, fatbinary);
}};
HOOK(cuModuleLoad)(Fn real, CUmodule* module, const char* path) {
  const void* instrumented = rt().fileImageToLoad(path);
  if (instrumented) return rt().driver().cuModuleLoadData(module, instrumented);
  return real(module, path);
}};
HOOK_SINCE(cuLibraryLoadData, 12000)(Fn real, CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                     void** jitValues, unsigned jitCount, CUlibraryOption* options, void** values,
                                     unsigned count) {
  const void* instrumented = rt().imageToLoad(code, tHookCaller);
  return real(library, instrumented ? instrumented : code, jitOptions, jitValues, jitCount, options, values, count);
}};
HOOK_SINCE(cuLibraryLoadFromFile, 12000)(Fn real, CUlibrary* library, const char* path, CUjit_option* jitOptions,
                                         void** jitValues, unsigned jitCount, CUlibraryOption* options,
                                         void** values, unsigned count) {
  const void* instrumented = rt().fileImageToLoad(path);
  if (instrumented)
    return rt().driver().cuLibraryLoadData(library, instrumented, jitOptions, jitValues, jitCount, options, values,
                                           count);
  return real(library, path, jitOptions, jitValues, jitCount, options, values, count);
}};

// Inputs of a link at run time: PTX is instrumented (in JIT mode, a fatbinary's PTX too) and
// linked in its place as PTX.
HOOK_SINCE(cuLinkAddData, 6050)(Fn real, CUlinkState state, CUjitInputType type, void* data, size_t size,
                                const char* name, unsigned n, CUjit_option* options, void** values) {
  if (type == CU_JIT_INPUT_PTX || type == CU_JIT_INPUT_FATBINARY)
    if (const char* ptx = rt().linkInputToLoad(data, size, type == CU_JIT_INPUT_PTX, name))
      return real(state, CU_JIT_INPUT_PTX, const_cast<char*>(ptx), std::strlen(ptx) + 1, name, n, options, values);
  return real(state, type, data, size, name, n, options, values);
}};
HOOK_SINCE(cuLinkAddFile, 6050)(Fn real, CUlinkState state, CUjitInputType type, const char* path, unsigned n,
                                CUjit_option* options, void** values) {
  if (type == CU_JIT_INPUT_PTX || type == CU_JIT_INPUT_FATBINARY)
    if (const char* ptx = rt().linkFileToLoad(path, type == CU_JIT_INPUT_PTX))
      return rt().driver().cuLinkAddData(state, CU_JIT_INPUT_PTX, const_cast<char*>(ptx), std::strlen(ptx) + 1, path,
                                         n, options, values);
  return real(state, type, path, n, options, values);
}};
HOOK_SINCE(cuLibraryGetKernel, 12000)(Fn real, CUkernel* kernel, CUlibrary library, const char* name) {
  CUresult r = real(kernel, library, name);
  if (r == CUDA_SUCCESS) rt().noteKernelHandle(*kernel, library);
  return r;
}};
// An attribute the program sets on a kernel (the dynamic shared memory it may take, a cluster
// shape) holds for the kernel's launch twin too: the twins are looked up again, and take the
// kernel's attributes then.
HOOK(cuFuncSetAttribute)(Fn real, CUfunction f, CUfunction_attribute attribute, int value) {
  CUresult r = real(f, attribute, value);
  if (r == CUDA_SUCCESS) rt().forgetLaunchTwins();
  return r;
}};
HOOK_SINCE(cuKernelSetAttribute, 12000)(Fn real, CUfunction_attribute attribute, int value, CUkernel kernel,
                                        CUdevice device) {
  CUresult r = real(attribute, value, kernel, device);
  if (r == CUDA_SUCCESS) rt().forgetLaunchTwins();
  return r;
}};
// A module unloaded: its handles and its functions' die with it, and a later module may get them.
// Forgotten before the real unload too: another thread loading a module once the real one
// returned may be given those handles before the runtime forgets them (a review's find).
// Forgetting a module that stays loaded costs its registration again at its next launch.
HOOK(cuModuleUnload)(Fn real, CUmodule module) {
  rt().moduleUnloaded(module);
  CUresult r = real(module);
  if (r == CUDA_SUCCESS) rt().moduleUnloaded(module);
  return r;
}};
HOOK_SINCE(cuLibraryUnload, 12000)(Fn real, CUlibrary library) {
  rt().libraryUnloaded(library);
  CUresult r = real(library);
  if (r == CUDA_SUCCESS) rt().libraryUnloaded(library);
  return r;
}};
HOOK(cuLaunchKernel)(Fn real, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                     unsigned bz, unsigned shared, CUstream stream, void** params, void** extra) {
  LaunchArguments scratch;
  rebindNewObjects();
  void** asked = params;
  CUfunction twin = nullptr;
  rt().launching(f, stream, params, extra, scratch, "cuLaunchKernel", &twin);
  CUresult r = real(twin ? twin : f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
  if (r != CUDA_SUCCESS && twin)
    r = rt().twinRefused(f, r, [&] { return real(f, gx, gy, gz, bx, by, bz, shared, stream, asked, extra); });
  if (r != CUDA_SUCCESS) {
    const unsigned block[3] = {bx, by, bz};
    rt().launchRefused(f, block, r, "the launch");
  }
  return rt().after(r);
}};
HOOK_SINCE(cuLaunchKernelEx, 11060)(Fn real, const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  LaunchArguments scratch;
  rebindNewObjects();
  void** asked = params;
  CUfunction twin = nullptr;
  rt().launching(f, config ? config->hStream : nullptr, params, extra, scratch, "cuLaunchKernelEx", config ? &twin : nullptr);
  // Launch attributes may name an address: the access policy window.
  CUlaunchConfig copy;
  std::vector<CUlaunchAttribute> attributes;
  if (config && config->attrs && config->numAttrs) {
    copy = *config;
    attributes.assign(config->attrs, config->attrs + config->numAttrs);
    for (auto& a : attributes)
      if (a.id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW)
        a.value.accessPolicyWindow.base_ptr = Runtime::stripHost(a.value.accessPolicyWindow.base_ptr);
    copy.attrs = attributes.data();
    config = &copy;
  }
  CUresult r = real(config, twin ? twin : f, params, extra);
  if (r != CUDA_SUCCESS && twin) r = rt().twinRefused(f, r, [&] { return real(config, f, asked, extra); });
  if (r != CUDA_SUCCESS && config) {
    const unsigned block[3] = {config->blockDimX, config->blockDimY, config->blockDimZ};
    rt().launchRefused(f, block, r, "the launch");
  }
  return rt().after(r);
}};
HOOK(cuLaunchCooperativeKernel)(Fn real, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params) {
  LaunchArguments scratch;
  void** extra = nullptr;
  rebindNewObjects();
  void** asked = params;
  CUfunction twin = nullptr;
  rt().launching(f, stream, params, extra, scratch, "cuLaunchCooperativeKernel", &twin);
  CUresult r = real(twin ? twin : f, gx, gy, gz, bx, by, bz, shared, stream, params);
  if (r != CUDA_SUCCESS && twin)
    r = rt().twinRefused(f, r, [&] { return real(f, gx, gy, gz, bx, by, bz, shared, stream, asked); });
  if (r != CUDA_SUCCESS) {
    const unsigned block[3] = {bx, by, bz};
    rt().launchRefused(f, block, r, "the cooperative launch");
  }
  return rt().after(r);
}};

// Deprecated, but still in cuda.h: one launch per device.
HOOK(cuLaunchCooperativeKernelMultiDevice)(Fn real, CUDA_LAUNCH_PARAMS* list, unsigned devices, unsigned flags) {
  std::vector<CUDA_LAUNCH_PARAMS> copy(list, list + (list ? devices : 0));
  std::vector<LaunchArguments> scratch(copy.size());
  for (size_t i = 0; i < copy.size(); ++i) {
    void** extra = nullptr;
    rt().launching(copy[i].function, std::nullopt, copy[i].kernelParams, extra, scratch[i],
                   "cuLaunchCooperativeKernelMultiDevice");
  }
  rt().finishUpdates();  // one stream per device: the host waits for the table updates instead
  return rt().after(real(list ? copy.data() : list, devices, flags));
}};

// A graph's kernels read the tables when it runs: it waits for the updates made so far.
HOOK(cuGraphLaunch)(Fn real, CUgraphExec exec, CUstream stream) {
  rt().graphLaunching(stream);
  return rt().after(real(exec, stream));
}};

// Graph kernel nodes copy their arguments when they are made: untag them there, then call
// `real(leading..., &copy)`. (Version 1 of the parameters, still exported under the plain
// names, has no CUkernel.)
template <class Real, class Params, class... Leading>
CUresult withKernelNode(Real real, const Params* p, Leading... leading) {
  LaunchArguments scratch;
  Params copy = *p;
  void* handle = copy.func;
  if constexpr (requires { copy.kern; })
    if (!handle) handle = copy.kern;
  if (handle) rt().launching(handle, std::nullopt, copy.kernelParams, copy.extra, scratch, "a graph kernel node");
  return rt().after(real(leading..., &copy));
}
HOOK_SINCE(cuGraphAddKernelNode, 12000)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps,
                                        size_t n, const CUDA_KERNEL_NODE_PARAMS* p) {
  return withKernelNode(real, p, node, graph, deps, n);
}};
HOOK_SINCE(cuGraphKernelNodeSetParams, 12000)(Fn real, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* p) {
  return withKernelNode(real, p, node);
}};
HOOK_SINCE(cuGraphExecKernelNodeSetParams, 12000)(Fn real, CUgraphExec exec, CUgraphNode node,
                                                  const CUDA_KERNEL_NODE_PARAMS* p) {
  return withKernelNode(real, p, exec, node);
}};
HOOK_BEFORE(cuGraphAddKernelNode, 12000, CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                                     const CUDA_KERNEL_NODE_PARAMS_v1*))(
    Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n, const CUDA_KERNEL_NODE_PARAMS_v1* p) {
  return withKernelNode(real, p, node, graph, deps, n);
}};
HOOK_BEFORE(cuGraphKernelNodeSetParams, 12000, CUresult (*)(CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v1*))(
    Fn real, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v1* p) {
  return withKernelNode(real, p, node);
}};
HOOK_BEFORE(cuGraphExecKernelNodeSetParams, 12000,
            CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v1*))(
    Fn real, CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v1* p) {
  return withKernelNode(real, p, exec, node);
}};

// Private driver tables the CUDA runtime asks for by UUID. Not wrapped (their layout is not
// public), only named in the debug log: a launch made through one of them passes unseen.
HOOK(cuGetExportTable)(Fn real, const void** table, const CUuuid* id) {
  CUresult r = real(table, id);
  if (rt().debug() && id) {
    std::string uuid;
    for (unsigned char b : id->bytes) uuid += fmt::format("{:02x}", b);
    rt().log(fmt::format("cuGetExportTable {} -> {}", uuid, r == CUDA_SUCCESS ? *table : nullptr));
  }
  return r;
}};

// ---- the stack limit: raised for instrumented kernels that recurse (instrument/StackReserve.h),
// the program's own value reported back --------------------------------------------------------

HOOK(cuCtxSetLimit)(Fn real, CUlimit limit, size_t value) {
  if (limit != CU_LIMIT_STACK_SIZE) return real(limit, value);
  return rt().setStackLimit(value, [&](size_t bytes) { return real(limit, bytes); });
}};
HOOK(cuCtxGetLimit)(Fn real, size_t* value, CUlimit limit) {
  CUresult r = real(value, limit);
  if (r == CUDA_SUCCESS && value && limit == CU_LIMIT_STACK_SIZE)
    if (std::optional<size_t> asked = rt().programStackLimit()) *value = *asked;
  return r;
}};

// ---- synchronization: where violations recorded by kernels are reported ---------------------

HOOK_BEFORE(cuCtxSynchronize, 13000, decltype(&::cuCtxSynchronize))(Fn real) {
  CUresult r = real();
  if (r == CUDA_SUCCESS) rt().synchronized(true);
  return rt().after(r);
}};
HOOK_NEWER(cuCtxSynchronize, 13000, cuCtxSynchronize_v2)(Fn real, CUcontext ctx) {
  CUresult r = real(ctx);
  if (r == CUDA_SUCCESS) rt().synchronized(ctx == nullptr);  // (another context's: the current one may still run)
  return rt().after(r);
}};
HOOK(cuStreamSynchronize)(Fn real, CUstream s) {
  CUresult r = real(s);
  if (r == CUDA_SUCCESS) rt().synchronized();
  return rt().after(r);
}};
HOOK(cuEventSynchronize)(Fn real, CUevent e) {
  CUresult r = real(e);
  if (r == CUDA_SUCCESS) rt().synchronized();
  return rt().after(r);
}};
// ---- calls that order work after a stream's: wrapped only so that the stream-ordered table
// changes pending reach their streams first (Runtime::beforeDriverCall, in every hook but a few):
// a kernel on another stream may wait for an event recorded here or for the host, which may
// have waited for this stream, and a capture must not take them in.

HOOK(cuEventRecord)(Fn real, CUevent e, CUstream s) { return real(e, s); }};
HOOK(cuEventRecordWithFlags)(Fn real, CUevent e, CUstream s, unsigned flags) { return real(e, s, flags); }};
HOOK(cuStreamWaitEvent)(Fn real, CUstream s, CUevent e, unsigned flags) { return real(s, e, flags); }};
HOOK(cuLaunchHostFunc)(Fn real, CUstream s, CUhostFn fn, void* data) { return real(s, fn, data); }};
HOOK(cuStreamAddCallback)(Fn real, CUstream s, CUstreamCallback fn, void* data, unsigned flags) {
  return real(s, fn, data, flags);
}};
// (Captures are counted: while none is under way, a stream-ordered allocation need not ask
// whether its stream is being captured.)
CUresult captureBegun(CUresult r) {
  if (r == CUDA_SUCCESS) rt().captureBegan();
  return r;
}
HOOK_SINCE(cuStreamBeginCapture, 10010)(Fn real, CUstream s, CUstreamCaptureMode mode) {
  return captureBegun(real(s, mode));
}};
HOOK_BEFORE(cuStreamBeginCapture, 10010, CUresult (*)(CUstream))(Fn real, CUstream s) { return captureBegun(real(s)); }};
HOOK(cuStreamBeginCaptureToGraph)(Fn real, CUstream s, CUgraph graph, const CUgraphNode* deps,
                                  const CUgraphEdgeData* edges, size_t n, CUstreamCaptureMode mode) {
  return captureBegun(real(s, graph, deps, edges, n, mode));
}};
HOOK(cuStreamEndCapture)(Fn real, CUstream s, CUgraph* graph) {
  // Ended; or, where it failed, ended (invalidated) or not (called from the wrong thread), or
  // there was no capture on this stream to end (a review's find: that failure took another
  // stream's capture off the count, and at 0 no stream is asked). The stream says, before and
  // after; but 0 names the per-thread stream only through the per-thread entry point, so there
  // a failure leaves the count as it is (too high: streams are asked, as before).
  auto status = [&] {
    CUstreamCaptureStatus now = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    return s && rt().driver().cuStreamIsCapturing(s, &now) == CUDA_SUCCESS ? std::optional(now) : std::nullopt;
  };
  const auto before = status();
  CUresult r = real(s, graph);
  if (r == CUDA_SUCCESS) {
    rt().captureEnded();
  } else if (before && *before != CU_STREAM_CAPTURE_STATUS_NONE) {
    const auto after = status();
    if (after && *after == CU_STREAM_CAPTURE_STATUS_NONE) rt().captureEnded();
  }
  return r;
}};
HOOK(cuWaitExternalSemaphoresAsync)(Fn real, const CUexternalSemaphore* sems,
                                    const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS* p, unsigned n, CUstream s) {
  return real(sems, p, n, s);
}};
HOOK(cuSignalExternalSemaphoresAsync)(Fn real, const CUexternalSemaphore* sems,
                                      const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS* p, unsigned n, CUstream s) {
  return real(sems, p, n, s);
}};
HOOK_SINCE(cuStreamDestroy, 4000)(Fn real, CUstream s) {
  rt().streamDestroying(s);  // (its handle may come back for another stream)
  return real(s);
}};
// Copies to and from arrays (the synchronous ones wait for the legacy stream, which waits for
// every blocking stream), and graphics interop, which orders the stream after the graphics API.
HOOK_SINCE(cuMemcpyHtoA, 3020)(Fn real, CUarray dst, size_t offset, const void* src, size_t n) {
  return real(dst, offset, src, n);
}};
HOOK_SINCE(cuMemcpyAtoH, 3020)(Fn real, void* dst, CUarray src, size_t offset, size_t n) {
  return real(dst, src, offset, n);
}};
HOOK_SINCE(cuMemcpyAtoA, 3020)(Fn real, CUarray dst, size_t dstOffset, CUarray src, size_t srcOffset, size_t n) {
  return real(dst, dstOffset, src, srcOffset, n);
}};
HOOK_SINCE(cuMemcpyHtoAAsync, 3020)(Fn real, CUarray dst, size_t offset, const void* src, size_t n, CUstream s) {
  return real(dst, offset, src, n, s);
}};
HOOK_SINCE(cuMemcpyAtoHAsync, 3020)(Fn real, void* dst, CUarray src, size_t offset, size_t n, CUstream s) {
  return real(dst, src, offset, n, s);
}};
HOOK(cuGraphicsMapResources)(Fn real, unsigned n, CUgraphicsResource* resources, CUstream s) {
  return real(n, resources, s);
}};
HOOK(cuGraphicsUnmapResources)(Fn real, unsigned n, CUgraphicsResource* resources, CUstream s) {
  return real(n, resources, s);
}};

HOOK(cuStreamQuery)(Fn real, CUstream s) { return rt().after(real(s)); }};
HOOK(cuEventQuery)(Fn real, CUevent e) { return rt().after(real(e)); }};

// ---- every other entry point that takes a device pointer: the driver gets it untagged ---------

HOOK(cuMemcpy)(Fn real, CUdeviceptr dst, CUdeviceptr src, size_t n) { return rt().after(real(strip(dst), strip(src), n)); }};
HOOK(cuMemcpyAsync)(Fn real, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return rt().after(real(strip(dst), strip(src), n, s));
}};
HOOK(cuMemcpyPeer)(Fn real, CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n) {
  return rt().after(real(strip(dst), dc, strip(src), sc, n));
}};
HOOK(cuMemcpyPeerAsync)(Fn real, CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s) {
  return rt().after(real(strip(dst), dc, strip(src), sc, n, s));
}};
HOOK_SINCE(cuMemcpyHtoD, 3020)(Fn real, CUdeviceptr dst, const void* src, size_t n) { return rt().after(real(strip(dst), src, n)); }};
HOOK_SINCE(cuMemcpyHtoDAsync, 3020)(Fn real, CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  return rt().after(real(strip(dst), src, n, s));
}};
HOOK_SINCE(cuMemcpyDtoH, 3020)(Fn real, void* dst, CUdeviceptr src, size_t n) { return rt().after(real(dst, strip(src), n)); }};
HOOK_SINCE(cuMemcpyDtoHAsync, 3020)(Fn real, void* dst, CUdeviceptr src, size_t n, CUstream s) {
  return rt().after(real(dst, strip(src), n, s));
}};
HOOK_SINCE(cuMemcpyDtoD, 3020)(Fn real, CUdeviceptr dst, CUdeviceptr src, size_t n) { return rt().after(real(strip(dst), strip(src), n)); }};
HOOK_SINCE(cuMemcpyDtoDAsync, 3020)(Fn real, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  return rt().after(real(strip(dst), strip(src), n, s));
}};
HOOK_SINCE(cuMemcpyDtoA, 3020)(Fn real, CUarray dst, size_t offset, CUdeviceptr src, size_t n) {
  return rt().after(real(dst, offset, strip(src), n));
}};
HOOK_SINCE(cuMemcpyAtoD, 3020)(Fn real, CUdeviceptr dst, CUarray src, size_t offset, size_t n) {
  return rt().after(real(strip(dst), src, offset, n));
}};

template <class T>
T stripCopy(const T* p) {
  T c = *p;
  c.srcDevice = strip(c.srcDevice);
  c.dstDevice = strip(c.dstDevice);
  return c;
}
HOOK_SINCE(cuMemcpy2D, 3020)(Fn real, const CUDA_MEMCPY2D* p) { auto c = stripCopy(p); return rt().after(real(&c)); }};
HOOK_SINCE(cuMemcpy2DUnaligned, 3020)(Fn real, const CUDA_MEMCPY2D* p) { auto c = stripCopy(p); return rt().after(real(&c)); }};
HOOK_SINCE(cuMemcpy2DAsync, 3020)(Fn real, const CUDA_MEMCPY2D* p, CUstream s) { auto c = stripCopy(p); return rt().after(real(&c, s)); }};
HOOK_SINCE(cuMemcpy3D, 3020)(Fn real, const CUDA_MEMCPY3D* p) { auto c = stripCopy(p); return rt().after(real(&c)); }};
HOOK_SINCE(cuMemcpy3DAsync, 3020)(Fn real, const CUDA_MEMCPY3D* p, CUstream s) { auto c = stripCopy(p); return rt().after(real(&c, s)); }};
HOOK(cuMemcpy3DPeer)(Fn real, const CUDA_MEMCPY3D_PEER* p) { auto c = stripCopy(p); return rt().after(real(&c)); }};
HOOK(cuMemcpy3DPeerAsync)(Fn real, const CUDA_MEMCPY3D_PEER* p, CUstream s) {
  auto c = stripCopy(p);
  return rt().after(real(&c, s));
}};

HOOK_SINCE(cuMemsetD8, 3020)(Fn real, CUdeviceptr d, unsigned char v, size_t n) { return rt().after(real(strip(d), v, n)); }};
HOOK_SINCE(cuMemsetD16, 3020)(Fn real, CUdeviceptr d, unsigned short v, size_t n) { return rt().after(real(strip(d), v, n)); }};
HOOK_SINCE(cuMemsetD32, 3020)(Fn real, CUdeviceptr d, unsigned v, size_t n) { return rt().after(real(strip(d), v, n)); }};
HOOK(cuMemsetD8Async)(Fn real, CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return rt().after(real(strip(d), v, n, s)); }};
HOOK(cuMemsetD16Async)(Fn real, CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return rt().after(real(strip(d), v, n, s)); }};
HOOK(cuMemsetD32Async)(Fn real, CUdeviceptr d, unsigned v, size_t n, CUstream s) { return rt().after(real(strip(d), v, n, s)); }};
HOOK_SINCE(cuMemsetD2D8, 3020)(Fn real, CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h) {
  return rt().after(real(strip(d), pitch, v, w, h));
}};
HOOK_SINCE(cuMemsetD2D16, 3020)(Fn real, CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h) {
  return rt().after(real(strip(d), pitch, v, w, h));
}};
HOOK_SINCE(cuMemsetD2D32, 3020)(Fn real, CUdeviceptr d, size_t pitch, unsigned v, size_t w, size_t h) {
  return rt().after(real(strip(d), pitch, v, w, h));
}};
HOOK(cuMemsetD2D8Async)(Fn real, CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s) {
  return rt().after(real(strip(d), pitch, v, w, h, s));
}};
HOOK(cuMemsetD2D16Async)(Fn real, CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s) {
  return rt().after(real(strip(d), pitch, v, w, h, s));
}};
HOOK(cuMemsetD2D32Async)(Fn real, CUdeviceptr d, size_t pitch, unsigned v, size_t w, size_t h, CUstream s) {
  return rt().after(real(strip(d), pitch, v, w, h, s));
}};

HOOK_SINCE(cuMemGetAddressRange, 3020)(Fn real, CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  CUresult r = real(base, size, strip(p));
  if (r == CUDA_SUCCESS && base) *base = Runtime::retag(*base, p);
  return r;
}};
// The addresses an attribute query gives back carry the argument's tag: the start of its range
// (as from cuMemGetAddressRange), and its device address, which for device memory (the only
// kind tagged) is the argument itself (cudaPointerGetAttributes' devicePointer: a program
// comparing it with its own pointer finds them equal, as without cucatch).
static void retagAttribute(CUpointer_attribute attribute, void* data, CUdeviceptr p) {
  if (!data || !cucatch::runtime::tagOf(p)) return;
  auto* address = static_cast<CUdeviceptr*>(data);
  if (attribute == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR ||
      (attribute == CU_POINTER_ATTRIBUTE_DEVICE_POINTER && *address == Runtime::strip(p)))
    *address = Runtime::retag(*address, p);
}
HOOK(cuPointerGetAttribute)(Fn real, void* data, CUpointer_attribute attribute, CUdeviceptr p) {
  CUresult r = real(data, attribute, strip(p));
  if (r == CUDA_SUCCESS) retagAttribute(attribute, data, p);
  return r;
}};
HOOK(cuPointerGetAttributes)(Fn real, unsigned n, CUpointer_attribute* attributes, void** data, CUdeviceptr p) {
  CUresult r = real(n, attributes, data, strip(p));
  if (r == CUDA_SUCCESS && attributes && data)
    for (unsigned i = 0; i < n; ++i) retagAttribute(attributes[i], data[i], p);
  return r;
}};
HOOK(cuPointerSetAttribute)(Fn real, const void* value, CUpointer_attribute attribute, CUdeviceptr p) {
  return real(value, attribute, strip(p));
}};
HOOK_SINCE(cuMemPrefetchAsync, 12020)(Fn real, CUdeviceptr p, size_t n, CUmemLocation location, unsigned flags, CUstream s) {
  return rt().after(real(strip(p), n, location, flags, s));
}};
HOOK_SINCE(cuMemAdvise, 12020)(Fn real, CUdeviceptr p, size_t n, CUmem_advise advice, CUmemLocation location) {
  return real(strip(p), n, advice, location);
}};
HOOK_BEFORE(cuMemPrefetchAsync, 12020, CUresult (*)(CUdeviceptr, size_t, CUdevice, CUstream))(
    Fn real, CUdeviceptr p, size_t n, CUdevice device, CUstream s) {
  return rt().after(real(strip(p), n, device, s));
}};
HOOK_BEFORE(cuMemAdvise, 12020, CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUdevice))(
    Fn real, CUdeviceptr p, size_t n, CUmem_advise advice, CUdevice device) {
  return real(strip(p), n, advice, device);
}};
HOOK(cuMemRangeGetAttribute)(Fn real, void* data, size_t bytes, CUmem_range_attribute attribute, CUdeviceptr p, size_t n) {
  return real(data, bytes, attribute, strip(p), n);
}};
HOOK(cuMemRangeGetAttributes)(Fn real, void** data, size_t* bytes, CUmem_range_attribute* attributes, size_t count,
                              CUdeviceptr p, size_t n) {
  return real(data, bytes, attributes, count, strip(p), n);
}};
HOOK(cuStreamAttachMemAsync)(Fn real, CUstream s, CUdeviceptr p, size_t n, unsigned flags) {
  return rt().after(real(s, strip(p), n, flags));
}};
HOOK(cuIpcGetMemHandle)(Fn real, CUipcMemHandle* handle, CUdeviceptr p) { return real(handle, strip(p)); }};
HOOK(cuStreamWriteValue32)(Fn real, CUstream s, CUdeviceptr a, cuuint32_t v, unsigned flags) {
  return rt().after(real(s, strip(a), v, flags));
}};
HOOK(cuStreamWriteValue64)(Fn real, CUstream s, CUdeviceptr a, cuuint64_t v, unsigned flags) {
  return rt().after(real(s, strip(a), v, flags));
}};
HOOK(cuStreamWaitValue32)(Fn real, CUstream s, CUdeviceptr a, cuuint32_t v, unsigned flags) {
  return rt().after(real(s, strip(a), v, flags));
}};
// Stream memory operations (also in graph nodes) name the addresses they wait on and write.
std::vector<CUstreamBatchMemOpParams> stripOps(const CUstreamBatchMemOpParams* ops, unsigned count) {
  std::vector<CUstreamBatchMemOpParams> copy(ops, ops + (ops ? count : 0));
  for (auto& op : copy)
    if (op.operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 || op.operation == CU_STREAM_MEM_OP_WAIT_VALUE_64)
      op.waitValue.address = strip(op.waitValue.address);
    else if (op.operation == CU_STREAM_MEM_OP_WRITE_VALUE_32 || op.operation == CU_STREAM_MEM_OP_WRITE_VALUE_64)
      op.writeValue.address = strip(op.writeValue.address);
  return copy;
}
// Versions 1 and 2 share the parameter type (they differ in which flags are allowed).
HOOK(cuStreamBatchMemOp)(Fn real, CUstream s, unsigned count, CUstreamBatchMemOpParams* ops, unsigned flags) {
  auto copy = stripOps(ops, count);
  return rt().after(real(s, count, ops ? copy.data() : ops, flags));
}};
HOOK(cuStreamWaitValue64)(Fn real, CUstream s, CUdeviceptr a, cuuint64_t v, unsigned flags) {
  return rt().after(real(s, strip(a), v, flags));
}};

HOOK(cuTexObjectCreate)(Fn real, CUtexObject* object, const CUDA_RESOURCE_DESC* resource,
                        const CUDA_TEXTURE_DESC* texture, const CUDA_RESOURCE_VIEW_DESC* view) {
  CUDA_RESOURCE_DESC c = *resource;
  if (c.resType == CU_RESOURCE_TYPE_LINEAR) c.res.linear.devPtr = strip(c.res.linear.devPtr);
  if (c.resType == CU_RESOURCE_TYPE_PITCH2D) c.res.pitch2D.devPtr = strip(c.res.pitch2D.devPtr);
  return real(object, &c, texture, view);
}};
HOOK_SINCE(cuTensorMapEncodeTiled, 12000)(Fn real, CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                          void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                          const cuuint32_t* box, const cuuint32_t* elementStrides,
                                          CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                          CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  return real(map, type, rank, Runtime::stripHost(address), dims, strides, box, elementStrides, interleave, swizzle, l2, fill);
}};
HOOK_SINCE(cuTensorMapEncodeIm2col, 12000)(Fn real, CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                           void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                           const int* lower, const int* upper, cuuint32_t channels,
                                           cuuint32_t pixels, const cuuint32_t* elementStrides,
                                           CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                           CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  return real(map, type, rank, Runtime::stripHost(address), dims, strides, lower, upper, channels, pixels,
              elementStrides, interleave, swizzle, l2, fill);
}};

// cuBLASLt's Hopper GEMMs encode a TMA descriptor once and then swap the address in it for every
// call: the descriptor is read by the TMA unit, which must see the raw address.
HOOK_SINCE(cuTensorMapReplaceAddress, 12000)(Fn real, CUtensorMap* map, void* address) {
  return real(map, Runtime::stripHost(address));
}};

HOOK(cuGraphAddMemcpyNode)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n,
                           const CUDA_MEMCPY3D* p, CUcontext ctx) {
  auto c = stripCopy(p);
  return real(node, graph, deps, n, &c, ctx);
}};
HOOK(cuGraphMemcpyNodeSetParams)(Fn real, CUgraphNode node, const CUDA_MEMCPY3D* p) {
  auto c = stripCopy(p);
  return real(node, &c);
}};
HOOK(cuGraphExecMemcpyNodeSetParams)(Fn real, CUgraphExec exec, CUgraphNode node, const CUDA_MEMCPY3D* p, CUcontext ctx) {
  auto c = stripCopy(p);
  return real(exec, node, &c, ctx);
}};
CUDA_MEMSET_NODE_PARAMS stripCopy(const CUDA_MEMSET_NODE_PARAMS* p) {
  CUDA_MEMSET_NODE_PARAMS c = *p;
  c.dst = strip(c.dst);
  return c;
}
HOOK(cuGraphAddMemsetNode)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n,
                           const CUDA_MEMSET_NODE_PARAMS* p, CUcontext ctx) {
  auto c = stripCopy(p);
  return real(node, graph, deps, n, &c, ctx);
}};
HOOK(cuGraphMemsetNodeSetParams)(Fn real, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS* p) {
  auto c = stripCopy(p);
  return real(node, &c);
}};
HOOK(cuGraphExecMemsetNodeSetParams)(Fn real, CUgraphExec exec, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS* p,
                                     CUcontext ctx) {
  auto c = stripCopy(p);
  return real(exec, node, &c, ctx);
}};
HOOK_SINCE(cuGraphAddMemFreeNode, 11040)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps,
                                         size_t n, CUdeviceptr p) {
  return real(node, graph, deps, n, strip(p));
}};

// ---- attributes that name an address: the access policy window ------------------------------

// An access policy window (L2 persistence) names an address range the hardware must see raw.
// Only the window is copied: the value union is smaller in older headers than in this cuda.h.
template <class Value>
Value stripWindow(const Value* v) {
  Value c{};
  c.accessPolicyWindow = v->accessPolicyWindow;
  c.accessPolicyWindow.base_ptr = Runtime::stripHost(c.accessPolicyWindow.base_ptr);
  return c;
}
template <class Value>
void retagWindow(Value* v, unsigned attribute) {
  if (attribute == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW && v)
    v->accessPolicyWindow.base_ptr = reinterpret_cast<void*>(
        rt().programPointer(reinterpret_cast<CUdeviceptr>(v->accessPolicyWindow.base_ptr)));
}
HOOK_SINCE(cuStreamSetAttribute, 11000)(Fn real, CUstream s, CUstreamAttrID attribute, const CUstreamAttrValue* v) {
  if (!v || attribute != CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) return real(s, attribute, v);
  CUstreamAttrValue c = stripWindow(v);
  return rt().after(real(s, attribute, &c));
}};
HOOK_SINCE(cuStreamGetAttribute, 11000)(Fn real, CUstream s, CUstreamAttrID attribute, CUstreamAttrValue* v) {
  CUresult r = real(s, attribute, v);
  if (r == CUDA_SUCCESS) retagWindow(v, attribute);
  return r;
}};
HOOK_SINCE(cuGraphKernelNodeSetAttribute, 11000)(Fn real, CUgraphNode node, CUkernelNodeAttrID attribute,
                                                 const CUkernelNodeAttrValue* v) {
  if (!v || attribute != CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) return real(node, attribute, v);
  CUkernelNodeAttrValue c = stripWindow(v);
  return real(node, attribute, &c);
}};
HOOK_SINCE(cuGraphKernelNodeGetAttribute, 11000)(Fn real, CUgraphNode node, CUkernelNodeAttrID attribute,
                                                 CUkernelNodeAttrValue* v) {
  CUresult r = real(node, attribute, v);
  if (r == CUDA_SUCCESS) retagWindow(v, attribute);
  return r;
}};

// ---- graph nodes of every kind, and batches ------------------------------------------------------

template <class Params>
CUresult withStrippedOps(const Params* p, const std::function<CUresult(const Params*)>& call) {
  if (!p) return call(p);
  Params c = *p;
  auto ops = stripOps(p->paramArray, p->count);
  if (p->paramArray) c.paramArray = ops.data();
  return call(&c);
}
HOOK_SINCE(cuGraphAddBatchMemOpNode, 11070)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n,
                                            const CUDA_BATCH_MEM_OP_NODE_PARAMS* p) {
  return withStrippedOps<CUDA_BATCH_MEM_OP_NODE_PARAMS>(p, [&](auto* c) { return real(node, graph, deps, n, c); });
}};
HOOK_SINCE(cuGraphBatchMemOpNodeSetParams, 11070)(Fn real, CUgraphNode node, const CUDA_BATCH_MEM_OP_NODE_PARAMS* p) {
  return withStrippedOps<CUDA_BATCH_MEM_OP_NODE_PARAMS>(p, [&](auto* c) { return real(node, c); });
}};
HOOK_SINCE(cuGraphExecBatchMemOpNodeSetParams, 11070)(Fn real, CUgraphExec exec, CUgraphNode node,
                                                      const CUDA_BATCH_MEM_OP_NODE_PARAMS* p) {
  return withStrippedOps<CUDA_BATCH_MEM_OP_NODE_PARAMS>(p, [&](auto* c) { return real(exec, node, c); });
}};

// The generic node parameters (cuGraphAddNode and friends): every kind that names device
// memory or launches a kernel. The driver writes outputs into the struct it is given (a
// conditional node's body graphs, a memory allocation node's address): the copy it worked on
// goes back to the caller, with the caller's own (tagged) values in the fields cucatch changed.
// Kinds with nothing to change reach the driver as they are.
template <class Call>
CUresult withStrippedNode(CUgraphNodeParams* p, Call call) {
  if (!p) return call(p);
  switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
    case CU_GRAPH_NODE_TYPE_MEMCPY:
    case CU_GRAPH_NODE_TYPE_MEMSET:
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: break;
    default: return call(p);
  }
  CUgraphNodeParams c = *p;
  LaunchArguments scratch;
  std::vector<CUstreamBatchMemOpParams> ops;
  switch (c.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
      void* handle = c.kernel.func ? static_cast<void*>(c.kernel.func) : static_cast<void*>(c.kernel.kern);
      if (handle) rt().launching(handle, std::nullopt, c.kernel.kernelParams, c.kernel.extra, scratch, "a graph kernel node");
      break;
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      c.memcpy.copyParams.srcDevice = strip(c.memcpy.copyParams.srcDevice);
      c.memcpy.copyParams.dstDevice = strip(c.memcpy.copyParams.dstDevice);
      break;
    case CU_GRAPH_NODE_TYPE_MEMSET: c.memset.dst = strip(c.memset.dst); break;
    case CU_GRAPH_NODE_TYPE_MEM_FREE: c.free.dptr = strip(c.free.dptr); break;
    default:  // CU_GRAPH_NODE_TYPE_BATCH_MEM_OP
      ops = stripOps(c.memOp.paramArray, c.memOp.count);
      if (c.memOp.paramArray) c.memOp.paramArray = ops.data();
      break;
  }
  CUresult r = call(&c);
  CUgraphNodeParams original = *p;
  *p = c;
  switch (c.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      p->kernel.kernelParams = original.kernel.kernelParams;
      p->kernel.extra = original.kernel.extra;
      break;
    case CU_GRAPH_NODE_TYPE_MEMCPY: p->memcpy.copyParams = original.memcpy.copyParams; break;
    case CU_GRAPH_NODE_TYPE_MEMSET: p->memset.dst = original.memset.dst; break;
    case CU_GRAPH_NODE_TYPE_MEM_FREE: p->free.dptr = original.free.dptr; break;
    default: p->memOp.paramArray = original.memOp.paramArray; break;
  }
  return r;
}
// A graph's own allocation (a memory allocation node) is untracked memory at addresses the
// driver chose when the node was made (below, with IPC: "memory of another process or API").
// Its frees outside the graph (cudaFreeAsync before the next launch) leave the range: the
// graph's next launch allocates at the same addresses.
template <class Params>  // (CUDA_MEM_ALLOC_NODE_PARAMS, or its _v2 in CUgraphNodeParams)
CUresult graphAllocated(CUresult r, const Params* params) {
  if (r == CUDA_SUCCESS && params) rt().untrackedReserved(params->dptr, params->bytesize);
  return r;
}
CUresult graphNodeAdded(CUresult r, const CUgraphNodeParams* p) {
  return p && p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ? graphAllocated(r, &p->alloc) : r;
}
HOOK_SINCE(cuGraphAddNode, 12030)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps,
                                  const CUgraphEdgeData* edges, size_t n, CUgraphNodeParams* p) {
  return graphNodeAdded(withStrippedNode(p, [&](CUgraphNodeParams* c) { return real(node, graph, deps, edges, n, c); }), p);
}};
HOOK_BEFORE(cuGraphAddNode, 12030, CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t, CUgraphNodeParams*))(
    Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n, CUgraphNodeParams* p) {
  return graphNodeAdded(withStrippedNode(p, [&](CUgraphNodeParams* c) { return real(node, graph, deps, n, c); }), p);
}};
HOOK_SINCE(cuGraphNodeSetParams, 12020)(Fn real, CUgraphNode node, CUgraphNodeParams* p) {
  return withStrippedNode(p, [&](CUgraphNodeParams* c) { return real(node, c); });
}};
HOOK_SINCE(cuGraphExecNodeSetParams, 12020)(Fn real, CUgraphExec exec, CUgraphNode node, CUgraphNodeParams* p) {
  return withStrippedNode(p, [&](CUgraphNodeParams* c) { return real(exec, node, c); });
}};

// Node parameters read back: the addresses the program gave, with their tags.
HOOK(cuGraphMemcpyNodeGetParams)(Fn real, CUgraphNode node, CUDA_MEMCPY3D* p) {
  CUresult r = real(node, p);
  if (r == CUDA_SUCCESS && p) {
    p->srcDevice = rt().programPointer(p->srcDevice);
    p->dstDevice = rt().programPointer(p->dstDevice);
  }
  return r;
}};
HOOK(cuGraphMemsetNodeGetParams)(Fn real, CUgraphNode node, CUDA_MEMSET_NODE_PARAMS* p) {
  CUresult r = real(node, p);
  if (r == CUDA_SUCCESS && p) p->dst = rt().programPointer(p->dst);
  return r;
}};
HOOK_SINCE(cuGraphMemFreeNodeGetParams, 11040)(Fn real, CUgraphNode node, CUdeviceptr* p) {
  CUresult r = real(node, p);
  if (r == CUDA_SUCCESS && p) *p = rt().programPointer(*p);
  return r;
}};
HOOK(cuTexObjectGetResourceDesc)(Fn real, CUDA_RESOURCE_DESC* d, CUtexObject object) {
  CUresult r = real(d, object);
  if (r == CUDA_SUCCESS && d) {
    if (d->resType == CU_RESOURCE_TYPE_LINEAR) d->res.linear.devPtr = rt().programPointer(d->res.linear.devPtr);
    if (d->resType == CU_RESOURCE_TYPE_PITCH2D) d->res.pitch2D.devPtr = rt().programPointer(d->res.pitch2D.devPtr);
  }
  return r;
}};

// Batched copies and memory operations (CUDA 12.8 and 13.0).
std::vector<CUdeviceptr> stripAll(const CUdeviceptr* p, size_t n) {
  std::vector<CUdeviceptr> c(p, p + (p ? n : 0));
  for (auto& x : c) x = strip(x);
  return c;
}
HOOK_SINCE(cuMemcpyBatchAsync, 13000)(Fn real, CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count,
                                      CUmemcpyAttributes* attrs, size_t* attrsIdxs, size_t numAttrs, CUstream s) {
  auto d = stripAll(dsts, count), c = stripAll(srcs, count);
  return rt().after(real(dsts ? d.data() : dsts, srcs ? c.data() : srcs, sizes, count, attrs, attrsIdxs, numAttrs, s));
}};
HOOK_BEFORE(cuMemcpyBatchAsync, 13000,
            CUresult (*)(CUdeviceptr*, CUdeviceptr*, size_t*, size_t, CUmemcpyAttributes*, size_t*, size_t, size_t*,
                         CUstream))(Fn real, CUdeviceptr* dsts, CUdeviceptr* srcs, size_t* sizes, size_t count,
                                    CUmemcpyAttributes* attrs, size_t* attrsIdxs, size_t numAttrs, size_t* failIdx,
                                    CUstream s) {
  auto d = stripAll(dsts, count), c = stripAll(srcs, count);
  return rt().after(real(dsts ? d.data() : dsts, srcs ? c.data() : srcs, sizes, count, attrs, attrsIdxs, numAttrs,
                         failIdx, s));
}};
std::vector<CUDA_MEMCPY3D_BATCH_OP> stripOperands(const CUDA_MEMCPY3D_BATCH_OP* ops, size_t n) {
  std::vector<CUDA_MEMCPY3D_BATCH_OP> c(ops, ops + (ops ? n : 0));
  for (auto& op : c)
    for (CUmemcpy3DOperand* o : {&op.src, &op.dst})
      if (o->type == CU_MEMCPY_OPERAND_TYPE_POINTER) o->op.ptr.ptr = strip(o->op.ptr.ptr);
  return c;
}
HOOK_SINCE(cuMemcpy3DBatchAsync, 13000)(Fn real, size_t n, CUDA_MEMCPY3D_BATCH_OP* ops, unsigned long long flags,
                                        CUstream s) {
  auto c = stripOperands(ops, n);
  return rt().after(real(n, ops ? c.data() : ops, flags, s));
}};
HOOK_BEFORE(cuMemcpy3DBatchAsync, 13000,
            CUresult (*)(size_t, CUDA_MEMCPY3D_BATCH_OP*, size_t*, unsigned long long, CUstream))(
    Fn real, size_t n, CUDA_MEMCPY3D_BATCH_OP* ops, size_t* failIdx, unsigned long long flags, CUstream s) {
  auto c = stripOperands(ops, n);
  return rt().after(real(n, ops ? c.data() : ops, failIdx, flags, s));
}};
HOOK_SINCE(cuMemPrefetchBatchAsync, 13000)(Fn real, CUdeviceptr* dptrs, size_t* sizes, size_t count,
                                           CUmemLocation* locations, size_t* locationIdxs, size_t numLocations,
                                           unsigned long long flags, CUstream s) {
  auto d = stripAll(dptrs, count);
  return rt().after(real(dptrs ? d.data() : dptrs, sizes, count, locations, locationIdxs, numLocations, flags, s));
}};
HOOK_SINCE(cuMemDiscardBatchAsync, 13000)(Fn real, CUdeviceptr* dptrs, size_t* sizes, size_t count,
                                          unsigned long long flags, CUstream s) {
  auto d = stripAll(dptrs, count);
  return rt().after(real(dptrs ? d.data() : dptrs, sizes, count, flags, s));
}};
HOOK_SINCE(cuMemDiscardAndPrefetchBatchAsync, 13000)(Fn real, CUdeviceptr* dptrs, size_t* sizes, size_t count,
                                                     CUmemLocation* locations, size_t* locationIdxs,
                                                     size_t numLocations, unsigned long long flags, CUstream s) {
  auto d = stripAll(dptrs, count);
  return rt().after(real(dptrs ? d.data() : dptrs, sizes, count, locations, locationIdxs, numLocations, flags, s));
}};

// ---- memory pools, IPC, dma-buf, multicast, texture references ---------------------------------

HOOK_SINCE(cuMemPoolExportPointer, 11020)(Fn real, CUmemPoolPtrExportData* out, CUdeviceptr p) {
  return real(out, strip(p));
}};
HOOK_SINCE(cuMemGetHandleForAddressRange, 11070)(Fn real, void* handle, CUdeviceptr p, size_t n,
                                                 CUmemRangeHandleType type, unsigned long long flags) {
  return real(handle, strip(p), n, type, flags);
}};
HOOK_SINCE(cuMulticastBindAddr, 12010)(Fn real, CUmemGenericAllocationHandle mc, size_t offset, CUdeviceptr p, size_t n,
                                       unsigned long long flags) {
  return real(mc, offset, strip(p), n, flags);
}};
HOOK_SINCE(cuTexRefSetAddress, 3020)(Fn real, size_t* offset, CUtexref ref, CUdeviceptr p, size_t n) {
  return real(offset, ref, strip(p), n);
}};
HOOK_SINCE(cuTexRefSetAddress2D, 4010)(Fn real, CUtexref ref, const CUDA_ARRAY_DESCRIPTOR* desc, CUdeviceptr p,
                                       size_t pitch) {
  return real(ref, desc, strip(p), pitch);
}};
HOOK_SINCE(cuTensorMapEncodeIm2colWide, 12080)(Fn real, CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                               void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                                               int lower, int upper, cuuint32_t channels, cuuint32_t pixels,
                                               const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                                               CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle swizzle,
                                               CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  return real(map, type, rank, Runtime::stripHost(address), dims, strides, lower, upper, channels, pixels,
              elementStrides, interleave, mode, swizzle, l2, fill);
}};

// ---- virtual memory management: not tracked, but its addresses are known ------------------------------
// A reservation's addresses may be a freed allocation's (its hint may be a pointer cudaMalloc
// gave, tagged): nothing is mapped there from then on, so raw pointers into the memory the
// program maps there are not checked against what lay there before.

HOOK(cuMemAddressReserve)(Fn real, CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                          unsigned long long flags) {
  CUresult r = real(ptr, size, alignment, strip(addr), flags);
  if (r == CUDA_SUCCESS) rt().untrackedReserved(*ptr, size);
  return rt().after(r);
}};
HOOK(cuMemAddressFree)(Fn real, CUdeviceptr ptr, size_t size) {
  CUresult r = real(strip(ptr), size);
  if (r == CUDA_SUCCESS) rt().untrackedReleased(ptr);
  return rt().after(r);
}};

// ---- memory of another process or API, and a graph's own: not tracked, its addresses known ---------
// As for reservations: the driver maps it where it likes, also where this process freed an
// allocation (an IPC handle opened after a free: ok_ipc_after_free), so nothing is mapped in
// the shadow map there. Runtime::free leaves a free of such memory to the driver; where that is
// how the API releases it (an imported pool pointer, an external buffer), the range ends.

HOOK(cuIpcOpenMemHandle)(Fn real, CUdeviceptr* p, CUipcMemHandle handle, unsigned flags) {
  CUresult r = real(p, handle, flags);
  if (r == CUDA_SUCCESS) rt().untrackedMapped(*p, false);
  return rt().after(r);
}};
HOOK(cuIpcCloseMemHandle)(Fn real, CUdeviceptr p) {
  // (The driver counts opens of one handle: past the first close, the range is no longer
  // recorded, and stays mapped to nothing until an allocation is made there.)
  CUresult r = real(strip(p));
  if (r == CUDA_SUCCESS) rt().untrackedReleased(p);
  return rt().after(r);
}};
HOOK_SINCE(cuMemPoolImportPointer, 11020)(Fn real, CUdeviceptr* p, CUmemoryPool pool, CUmemPoolPtrExportData* data) {
  CUresult r = real(p, pool, data);
  if (r == CUDA_SUCCESS) rt().untrackedMapped(*p, true);
  return rt().after(r);
}};
HOOK(cuExternalMemoryGetMappedBuffer)(Fn real, CUdeviceptr* p, CUexternalMemory memory,
                                      const CUDA_EXTERNAL_MEMORY_BUFFER_DESC* desc) {
  CUresult r = real(p, memory, desc);
  if (r == CUDA_SUCCESS) rt().untrackedReserved(*p, desc->size, true);
  return rt().after(r);
}};
HOOK_SINCE(cuGraphicsResourceGetMappedPointer, 3020)(Fn real, CUdeviceptr* p, size_t* size, CUgraphicsResource resource) {
  CUresult r = real(p, size, resource);
  if (r == CUDA_SUCCESS && p) size ? rt().untrackedReserved(*p, *size) : rt().untrackedMapped(*p, false);
  return rt().after(r);
}};
HOOK_SINCE(cuGraphAddMemAllocNode, 11040)(Fn real, CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n,
                                          CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  return rt().after(graphAllocated(real(node, graph, deps, n, params), params));
}};

// ---- host memory the device reads: tracked, untagged (host code uses the same pointer) -------------

HOOK(cuMemHostRegister)(Fn real, void* p, size_t bytes, unsigned flags) {
  CUresult r = real(p, bytes, flags);
  if (r == CUDA_SUCCESS) rt().allocated(reinterpret_cast<CUdeviceptr>(p), bytes, MemoryKind::HostRegistered);
  return rt().after(r);
}};
HOOK(cuMemHostUnregister)(Fn real, void* p) {
  return rt().after(rt().free(reinterpret_cast<CUdeviceptr>(p), [&](CUdeviceptr) { return real(p); }));
}};

#undef HOOK
#undef HOOK_SINCE
#undef HOOK_BEFORE
#undef HOOK_NEWER

// Every hook above, once. (A hook missing here is never handed out.)
#define CUCATCH_HOOKS(X)                                                                            \
  X(cuMemAlloc) X(cuMemAllocPitch) X(cuMemAllocManaged) X(cuMemHostAlloc) X(cuMemAllocHost)         \
  X(cuMemAllocAsync) X(cuMemAllocFromPoolAsync) X(cuMemFree) X(cuMemFreeHost) X(cuMemFreeAsync)     \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleLoadFatBinary) X(cuModuleLoad) X(cuLibraryLoadData)    \
  X(cuLibraryLoadFromFile) X(cuLinkAddData) X(cuLinkAddFile) X(cuLibraryGetKernel) X(cuGetExportTable) X(cuGraphLaunch) X(cuFuncSetAttribute) X(cuKernelSetAttribute) X(cuModuleUnload) X(cuLibraryUnload) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuLaunchCooperativeKernel)          \
  X(cuGraphAddKernelNode) X(cuGraphKernelNodeSetParams) X(cuGraphExecKernelNodeSetParams)           \
  X(cuGraphAddKernelNode_old) X(cuGraphKernelNodeSetParams_old) X(cuGraphExecKernelNodeSetParams_old) \
  X(cuCtxSynchronize_old) X(cuCtxSynchronize_v2) X(cuStreamSynchronize) X(cuEventSynchronize) X(cuStreamQuery) X(cuEventQuery) \
  X(cuMemcpy) X(cuMemcpyAsync) X(cuMemcpyPeer) X(cuMemcpyPeerAsync) X(cuMemcpyHtoD)                 \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoH) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoD) X(cuMemcpyDtoDAsync)    \
  X(cuMemcpyDtoA) X(cuMemcpyAtoD) X(cuMemcpy2D) X(cuMemcpy2DUnaligned) X(cuMemcpy2DAsync)           \
  X(cuMemcpy3D) X(cuMemcpy3DAsync) X(cuMemcpy3DPeer) X(cuMemcpy3DPeerAsync) X(cuMemsetD8)          \
  X(cuMemsetD16) X(cuMemsetD32) X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async)          \
  X(cuMemsetD2D8) X(cuMemsetD2D16) X(cuMemsetD2D32) X(cuMemsetD2D8Async) X(cuMemsetD2D16Async)      \
  X(cuMemsetD2D32Async) X(cuMemGetAddressRange) X(cuPointerGetAttribute) X(cuPointerGetAttributes)  \
  X(cuPointerSetAttribute) X(cuMemPrefetchAsync) X(cuMemAdvise) X(cuMemPrefetchAsync_old) X(cuMemAdvise_old)    \
  X(cuMemRangeGetAttribute)           \
  X(cuMemRangeGetAttributes) X(cuStreamAttachMemAsync) X(cuIpcGetMemHandle) X(cuStreamWriteValue32) \
  X(cuStreamWriteValue64) X(cuStreamWaitValue32) X(cuStreamWaitValue64) X(cuStreamBatchMemOp) X(cuTexObjectCreate)       \
  X(cuTensorMapEncodeTiled) X(cuTensorMapEncodeIm2col) X(cuTensorMapReplaceAddress) X(cuGraphAddMemcpyNode)                      \
  X(cuGraphMemcpyNodeSetParams) X(cuGraphExecMemcpyNodeSetParams) X(cuGraphAddMemsetNode)           \
  X(cuGraphMemsetNodeSetParams) X(cuGraphExecMemsetNodeSetParams) X(cuGraphAddMemFreeNode)             \
  X(cuStreamSetAttribute) X(cuStreamGetAttribute) X(cuGraphKernelNodeSetAttribute)                    \
  X(cuGraphKernelNodeGetAttribute) X(cuGraphAddBatchMemOpNode) X(cuGraphBatchMemOpNodeSetParams)      \
  X(cuGraphExecBatchMemOpNodeSetParams) X(cuGraphAddNode) X(cuGraphAddNode_old) X(cuGraphNodeSetParams) \
  X(cuGraphExecNodeSetParams) X(cuGraphMemcpyNodeGetParams) X(cuGraphMemsetNodeGetParams)             \
  X(cuGraphMemFreeNodeGetParams) X(cuTexObjectGetResourceDesc) X(cuMemcpyBatchAsync)                  \
  X(cuMemcpyBatchAsync_old) X(cuMemcpy3DBatchAsync) X(cuMemcpy3DBatchAsync_old)                       \
  X(cuMemPrefetchBatchAsync) X(cuMemDiscardBatchAsync) X(cuMemDiscardAndPrefetchBatchAsync)           \
  X(cuMemPoolExportPointer) X(cuIpcCloseMemHandle) X(cuMemGetHandleForAddressRange)                   \
  X(cuMulticastBindAddr) X(cuTexRefSetAddress) X(cuTexRefSetAddress2D) X(cuTensorMapEncodeIm2colWide)  \
  X(cuMemHostRegister) X(cuMemHostUnregister) X(cuLaunchCooperativeKernelMultiDevice)              \
  X(cuMemAddressReserve) X(cuMemAddressFree) X(cuIpcOpenMemHandle) X(cuMemPoolImportPointer)         \
  X(cuExternalMemoryGetMappedBuffer) X(cuGraphicsResourceGetMappedPointer) X(cuGraphAddMemAllocNode)  \
  X(cuCtxDestroy) X(cuDevicePrimaryCtxReset) X(cuDevicePrimaryCtxRelease) X(cuCtxSetLimit) X(cuCtxGetLimit) \
  X(cuEventRecord) X(cuEventRecordWithFlags) X(cuStreamWaitEvent) X(cuLaunchHostFunc) X(cuStreamAddCallback) \
  X(cuStreamBeginCapture) X(cuStreamBeginCapture_old) X(cuStreamBeginCaptureToGraph) X(cuStreamEndCapture) \
  X(cuWaitExternalSemaphoresAsync)                                                                    \
  X(cuSignalExternalSemaphoresAsync) X(cuStreamDestroy) X(cuMemcpyHtoA) X(cuMemcpyAtoH) X(cuMemcpyAtoA)        \
  X(cuMemcpyHtoAAsync) X(cuMemcpyAtoHAsync) X(cuGraphicsMapResources) X(cuGraphicsUnmapResources)

std::span<const HookEntry> allHooks() {
#define CUCATCH_ENTRY(NAME) Hook_##NAME::entry(),
  static const HookEntry hooks[] = {CUCATCH_HOOKS(CUCATCH_ENTRY)};
#undef CUCATCH_ENTRY
  return hooks;
}

// The hook for a cuGetProcAddress request.
const HookEntry* findHook(std::string_view name, int version) {
  for (const auto& h : allHooks())
    if (name == h.name && version >= h.minVersion && version < h.maxVersion) return &h;
  return nullptr;
}

// The hook for a symbol libcuda exports: its cuda.h name, with the per-thread default stream
// suffix (_ptsz, _ptds) dropped, since the trampoline calls whichever variant it was handed.
const HookEntry* findExportedHook(std::string_view symbol) {
  for (std::string_view suffix : {"_ptsz", "_ptds"})
    if (symbol.ends_with(suffix)) symbol.remove_suffix(suffix.size());
  for (const auto& h : allHooks())
    if (symbol == h.exported || (h.alsoExported && symbol == h.alsoExported)) return &h;
  return nullptr;
}

// The trampoline that calls `real` through hook `h`, taking a free slot for it; `real` itself
// when all slots hold other variants.
void* wrap(const HookEntry& h, void* real, const char* symbol) {
  for (size_t i = 0; i < kSlots; ++i) {
    void* expected = nullptr;
    if (h.slots[i].compare_exchange_strong(expected, real) || expected == real) return h.trampolines[i];
  }
  Runtime::get().log(fmt::format("{}: more than {} variants; this one is not intercepted", symbol, kSlots));
  return real;
}

// ---- cuGetProcAddress and dlsym -----------------------------------------------------------------

using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
std::atomic<GetProcAddressV2> realGetProcAddressV2{nullptr};
std::atomic<GetProcAddressV1> realGetProcAddressV1{nullptr};

CUresult ourGetProcAddressV2(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
CUresult ourGetProcAddressV1(const char*, void**, int, cuuint64_t);

void bindRuntime() {
  if (auto real = realGetProcAddressV2.load()) Runtime::get().bindDriver(real);
}

// Replaces the real entry point in *pfn by our wrapper, where we have one.
void intercept(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  std::string_view name(symbol);
  if (name == "cuGetProcAddress") {
    if (version >= 12000) {
      realGetProcAddressV2.store(reinterpret_cast<GetProcAddressV2>(*pfn));
      *pfn = reinterpret_cast<void*>(&ourGetProcAddressV2);
    } else {
      realGetProcAddressV1.store(reinterpret_cast<GetProcAddressV1>(*pfn));
      *pfn = reinterpret_cast<void*>(&ourGetProcAddressV1);
    }
    return;
  }
  const HookEntry* h = findHook(name, version);
  if (Runtime::get().debug())
    Runtime::get().log(fmt::format("cuGetProcAddress {} (ABI {}, flags {}){}", symbol, version, flags, h ? "" : ": not wrapped"));
  if (!h) {
    if (findHook(name, 1 << 29)) Runtime::get().log(fmt::format("{} asked for ABI version {}: not intercepted", symbol, version));
    return;
  }
  *pfn = wrap(*h, *pfn, symbol);
}

CUresult ourGetProcAddressV2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
  CUresult r = realGetProcAddressV2.load()(symbol, pfn, version, flags, status);
  if (r == CUDA_SUCCESS && symbol && pfn && *pfn) {
    bindRuntime();
    intercept(symbol, pfn, version, flags);
  }
  return r;
}

CUresult ourGetProcAddressV1(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  CUresult r = realGetProcAddressV1.load()(symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS && symbol && pfn && *pfn) {
    bindRuntime();
    intercept(symbol, pfn, version, flags);
  }
  return r;
}

using DlsymFn = void* (*)(void*, const char*);
DlsymFn realDlsym() {
  static DlsymFn real = [] {
    void* p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p) p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");  // x86-64 before glibc 2.34
    if (!p) p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");   // AArch64 before glibc 2.34
    return reinterpret_cast<DlsymFn>(p);
  }();
  return real;
}

// The runtime calls the driver through the real cuGetProcAddress_v2: bind it from libcuda's
// `handle` if nothing has yet (a program that calls driver entry points by symbol may never
// look it up itself).
void bindDriverFrom(void* handle) {
  if (realGetProcAddressV2.load()) return;
  if (void* g = realDlsym()(handle, "cuGetProcAddress_v2")) {
    realGetProcAddressV2.store(reinterpret_cast<GetProcAddressV2>(g));
    bindRuntime();
  }
}

bool inLibcuda(void* p) {
  Dl_info info;
  return dladdr(p, &info) && info.dli_fname && std::strstr(info.dli_fname, "libcuda.so");
}

// What the program gets for symbol `name`, found at `p` through `handle`. The two
// cuGetProcAddress entry points become ours; so does every driver entry point we wrap that is
// looked up by name (cuBLASLt resolves cuLaunchKernel, cuMemAlloc_v2, ... with dlsym on libcuda).
void* lookedUp(void* handle, const char* name, void* p) {
  if (!p || !name || name[0] != 'c' || name[1] != 'u') return p;
  if (std::strcmp(name, "cuGetProcAddress_v2") == 0) {
    realGetProcAddressV2.store(reinterpret_cast<GetProcAddressV2>(p));
    bindRuntime();
    return reinterpret_cast<void*>(&ourGetProcAddressV2);
  }
  if (std::strcmp(name, "cuGetProcAddress") == 0) {
    realGetProcAddressV1.store(reinterpret_cast<GetProcAddressV1>(p));
    return reinterpret_cast<void*>(&ourGetProcAddressV1);
  }
  const HookEntry* h = findExportedHook(name);
  bool wrapped = h && inLibcuda(p);
  if (Runtime::get().debug()) Runtime::get().log(fmt::format("dlsym {}{}", name, wrapped ? "" : ": not wrapped"));
  if (!wrapped) return p;
  bindDriverFrom(handle);
  return wrap(*h, p, name);
}

// libcucatch's wrapper of a library entry point (Libraries.h: cuFFT, batched cuBLAS and cuSOLVER,
// nvJitLink) that a lookup by name found in the library itself, or nullptr. A program (or a
// framework) that opens the library with dlopen and calls it through dlsym'd pointers passed it
// tagged buffers, which its kernels read from memory. Not for libcucatch's own lookups
// (`caller`): the wrapper looks for the library's definition that way.
void* libraryWrapper(const char* name, void* found, const void* caller) {
  if (!found || !name || !((name[0] == 'c' && name[1] == 'u') || std::strncmp(name, "__nvJitLink", 11) == 0))
    return nullptr;
  const auto& wrapped = cucatch::runtime::libraryDefinitions();
  auto ours = wrapped.find(name);
  if (ours == wrapped.end() || found == ours->second || cucatch::runtime::isCucatch(caller)) return nullptr;
  // Only where the wrapper calls this very definition: with two copies of a library loaded (a
  // framework's wheel and the toolkit's), it calls the first, and a plan made by the other
  // would be unknown there.
  if (cucatch::runtime::libraryTarget(name) != found) return nullptr;
  if (Runtime::get().debug()) Runtime::get().log(fmt::format("dlsym {}: the library's, wrapped", name));
  return ours->second;
}

// libcuda, for the entry points programs call by symbol: already loaded where the program was
// linked with it; loaded here where libcucatch alone satisfied the program's references.
void* libcuda() {
  static void* handle = [] {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return h ? h : dlopen("libcuda.so.1", RTLD_LAZY | RTLD_GLOBAL);
  }();
  return handle;
}

void* exportedReal(const char* symbol) {
  void* handle = libcuda();
  if (!handle) {
    Runtime::get().log(fmt::format("{} called by symbol, but libcuda.so.1 cannot be loaded", symbol));
    return nullptr;
  }
  bindDriverFrom(handle);
  return realDlsym()(handle, symbol);
}

}  // namespace

// ---- the driver entry points, exported under libcuda's names ------------------------------------
//
// Each is a stub that jumps to its hook's `exported<symbol>` through a hidden pointer, so one
// line per name serves every signature. The list (exports.inc) is generated from the hooks above
// and cuda.h by gen-exports.py.
// (SYMBOL is stringized and pasted, never expanded: cuda.h defines some plain names as macros.)
#define CUCATCH_EXPORT(HOOK, SYMBOL)                                                                    \
  namespace {                                                                                          \
  constexpr char cucatch_name_##SYMBOL[] = #SYMBOL;                                                    \
  }                                                                                                    \
  extern "C" __attribute__((visibility("hidden"), used)) const decltype(&HOOK::exported<cucatch_name_##SYMBOL>) \
      cucatch_target_##SYMBOL = &HOOK::exported<cucatch_name_##SYMBOL>;                                \
  extern "C" void cucatch_stub_##SYMBOL();                                                             \
  CUCATCH_EXPORT_STUB(#SYMBOL)
#if defined(__x86_64__)
// (endbr64: a valid indirect-branch target where CET is enforced; a no-op elsewhere.)
#define CUCATCH_EXPORT_STUB(NAME)                                                                        \
  asm(".pushsection .text\n.globl " NAME "\n.type " NAME ",@function\n.globl cucatch_stub_" NAME            \
      "\n.hidden cucatch_stub_" NAME "\n" NAME ":\ncucatch_stub_" NAME ":\nendbr64\n"                         \
      "jmp *cucatch_target_" NAME "(%rip)\n.size " NAME ", .-" NAME "\n.popsection\n");
#elif defined(__aarch64__)
// (bti c: a valid indirect-call target where BTI is enforced; a no-op elsewhere.)
#define CUCATCH_EXPORT_STUB(NAME)                                                                        \
  asm(".pushsection .text\n.globl " NAME "\n.type " NAME ",%function\n.globl cucatch_stub_" NAME            \
      "\n.hidden cucatch_stub_" NAME "\n" NAME ":\ncucatch_stub_" NAME ":\nbti c\nadrp x16, cucatch_target_"   \
      NAME "\nldr x16, [x16, :lo12:cucatch_target_" NAME "]\nbr x16\n.size " NAME ", .-" NAME "\n.popsection\n");
#else
#error "the exported driver stubs are written for x86-64 and AArch64"
#endif
#include "runtime/exports.inc"
#undef CUCATCH_EXPORT

namespace {

// Symbol -> libcucatch's definition, for rebinding references bound to libcuda or a library.
const std::unordered_map<std::string, void*>& exportedDefinitions() {
  static const std::unordered_map<std::string, void*> table = [] {
    std::unordered_map<std::string, void*> t;
#define CUCATCH_EXPORT(HOOK, SYMBOL) t[#SYMBOL] = reinterpret_cast<void*>(&cucatch_stub_##SYMBOL);
#include "runtime/exports.inc"
#undef CUCATCH_EXPORT
    for (const auto& [name, definition] : cucatch::runtime::libraryDefinitions()) t[name] = definition;
    return t;
  }();
  return table;
}

// Objects loaded since libcucatch was (dlopen'ed plugins linked with -lcuda) get their driver
// references rebound at the next allocation or launch.
void rebindNewObjects() {
  cucatch::runtime::RebindTargets targets;
  targets.definitions = &exportedDefinitions();
  targets.self = reinterpret_cast<const void*>(&libcuda);
  // libcuda where the process has loaded it (only then can a reference be bound there), looked
  // for once per rebinding, at its first driver entry point. Not libcuda(), which loads it: the
  // first rebinding did so in every process under cucatch-run, CUDA or not (a shell, Python).
  std::optional<void*> driver;
  targets.foreign = [&driver](const std::string& symbol) -> void* {
    // A library entry point (cuFFT, batched cuBLAS and cuSOLVER, nvJitLink): the library's own
    // definition; a driver entry point: libcuda's.
    if (cucatch::runtime::libraryDefinitions().count(symbol)) return cucatch::runtime::libraryDefinition(symbol.c_str());
    if (!driver) driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return *driver ? realDlsym()(*driver, symbol.c_str()) : nullptr;
  };
  size_t n = cucatch::runtime::rebindReferences(targets);
  if (driver && *driver) dlclose(*driver);  // (loaded before: it stays)
  if (n) Runtime::get().log(fmt::format("{} references to driver and library entry points rebound to cucatch's", n));
}

}  // namespace

extern "C" {

// The program's (and the CUDA libraries') dlsym: see lookedUp. (dlsym(RTLD_NEXT, ...) therefore
// searches after libcucatch rather than after the caller: see docs/runtime.md. dlvsym is left
// alone: libcucatch finds glibc's dlsym through it.)
__attribute__((visibility("default"))) void* dlsym(void* handle, const char* name) {
  void* p = realDlsym()(handle, name);
  if (void* wrapper = libraryWrapper(name, p, __builtin_return_address(0))) return wrapper;
  return lookedUp(handle, name, p);
}

// Lets cucatch-run and tests see that the runtime is in the process.
__attribute__((visibility("default"))) int cucatch_runtime_abi_version() { return cucatch::abi::kAbiVersion; }

}  // extern "C"

// The runtime reads its options when the library is loaded, so that a bad CUCATCH_* value is
// reported before the program starts.
__attribute__((constructor)) static void cucatchLoaded() {
  Runtime::get();
  // References to driver entry points already bound to libcuda (a program linked with libcuda
  // before libcucatch) now reach the hooks.
  rebindNewObjects();
}
