#include "runtime/Runtime.h"

#include "runtime/Libraries.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "runtime/DriverLink.h"
#include "runtime/DynamicSection.h"

namespace cucatch::runtime {

namespace {

// Stream-ordered changes kept pending at most (PendingUpdates.h): a program that allocates and
// frees on and on with no other driver call between enqueues them in batches of this many.
constexpr size_t kMostPending = 256;
// Entries held for the next flushUpdates at most: those of allocations freed while pending reach
// the device in one batch of copies every so many pairs where no launch comes between.
constexpr size_t kMostHeld = 4096;

// Errors after which the context is gone: an instrumented kernel that trapped ends this way.
bool isLaunchFailure(CUresult r) {
  switch (r) {
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return true;
    default:
      return false;
  }
}

}  // namespace

Runtime& Runtime::get() {
  // Never destroyed: drivers and other libraries call in during their own teardown.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

Runtime::Runtime() : options_(Options::defaults()) {
  std::string error = options_.load([](const char* name) { return std::getenv(name); });
  if (!error.empty()) {
    writeStderr(fmt::format("cucatch: error: {}\n", error));
    _exit(2);
  }
  unwinder_.emplace(options_.unwinder);  // (loaded at the first backtrace: Unwinder.h)
  // Settled here, before any thread allocates (the first tagged pointer) or reads the option.
  // JIT mode runs binaries whose modules are often not instrumented (SASS only, -rdc, libraries),
  // and an uninstrumented kernel faults on a tagged pointer it reads from memory (cuda-samples'
  // cdpQuadtree and cdpAdvancedQuicksort did): tags are off there unless asked for.
  const char* tagsAsked = std::getenv("CUCATCH_TAGS");
  if (tagsAsked && !*tagsAsked) tagsAsked = nullptr;
  if (options_.jit && options_.tags && !tagsAsked) {
    options_.tags = false;
    log("JIT mode: pointer tags off (CUCATCH_TAGS=1 turns them on)");
  }
  if (options_.tags) keepTagsOffStaticLibraries(tagsAsked);
  std::atexit([] { Runtime::get().atExit(); });
}

void Runtime::log(const std::string& line) {
  if (options_.debug) writeStderr(fmt::format("cucatch: debug: {}\n", line));
}

void Runtime::bindDriver(decltype(&::cuGetProcAddress_v2) getProcAddress) {
  std::lock_guard lock(mutex_);
  if (d_.cuCtxGetCurrent || deviceFailed_) return;  // bound, or tried once and found wanting
  bool missing = false;
#define CUCATCH_RESOLVE(name)                                                                    \
  {                                                                                              \
    void* fn = nullptr;                                                                          \
    CUdriverProcAddressQueryResult status;                                                       \
    if (getProcAddress(#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS && fn) \
      d_.name = reinterpret_cast<decltype(d_.name)>(fn);                                         \
    else {                                                                                       \
      writeStderr("cucatch: warning: the driver has no " #name "\n");                               \
      missing = true;                                                                            \
    }                                                                                            \
  }
  CUCATCH_DRIVER_FUNCTIONS(CUCATCH_RESOLVE)
  CUCATCH_DRIVER_FUNCTIONS_RENAMED(CUCATCH_RESOLVE)
#undef CUCATCH_RESOLVE
  if (missing) deviceFailed_ = true;
}

void Runtime::relaxCapture(CUstreamCaptureMode& saved) {
  saved = CU_STREAM_CAPTURE_MODE_RELAXED;
  d_.cuThreadExchangeStreamCaptureMode(&saved);
}
void Runtime::restoreCapture(CUstreamCaptureMode saved) { d_.cuThreadExchangeStreamCaptureMode(&saved); }

// ------------------------------------------------------------------------------ device tables

void Runtime::keepTagsOffStaticLibraries(const char* asked) {
  // The program's table, kept for the reports' backtraces (symbolize), which look it up by the
  // same name.
  const ElfSymbols& program = elfSymbols_.emplace("/proc/self/exe", ElfSymbols::load("/proc/self/exe")).first->second;
  std::string entryPoint = staticallyLinkedLibrary(program);
  if (entryPoint.empty()) return;
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string where = fmt::format("{} defines {}", n > 0 ? std::string(exe, static_cast<size_t>(n)) : "the program",
                                  entryPoint);
  if (asked) {
    writeStderr(fmt::format("cucatch: warning: cuFFT is linked statically ({}), where cucatch cannot untag the "
                            "buffers it keeps in device memory; CUCATCH_TAGS={} keeps tags on, so its kernels may "
                            "fault on tagged pointers they read from there\n",
                            where, asked));
    return;
  }
  options_.tags = false;
  writeStderr(fmt::format("cucatch: note: cuFFT is linked statically ({}): it keeps the program's buffers in device "
                          "memory, where cucatch cannot untag them, so pointer tags are off for this process "
                          "(as CUCATCH_TAGS=0: bounds are checked through the shadow map; a stale pointer into "
                          "reallocated memory goes unnoticed). Link cuFFT dynamically to keep them.\n",
                          where));
}

bool Runtime::ensureDevice() {
  current_ = nullptr;
  if (deviceFailed_ || !d_.cuCtxGetCurrent) return false;
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (d_.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || d_.cuCtxGetId(ctx, &id) != CUDA_SUCCESS) return false;
  if (auto known = contexts_.find(id); known != contexts_.end()) {
    current_ = known->second.get();
    return current_ != nullptr;
  }
  if (!metadata_) {
    MetadataConfig config;
    config.tags = options_.tags;
    config.bstCapacity = static_cast<uint32_t>(options_.bstCapacity);
    metadata_.emplace(config);
  }
  CUdevice device = -1;
  d_.cuCtxGetDevice(&device, ctx);
  int pageable = 0;
  if (d_.cuDeviceGetAttribute(&pageable, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device) == CUDA_SUCCESS && pageable)
    metadata_->allowPageableAccess();
  // Whether it is the device's primary context: only if that one is active, and then by its
  // handle (retained and released again, which changes nothing while it is active).
  bool primary = false;
  unsigned flags = 0;
  int active = 0;
  CUcontext primaryContext = nullptr;
  if (d_.cuDevicePrimaryCtxGetState(device, &flags, &active) == CUDA_SUCCESS && active &&
      d_.cuDevicePrimaryCtxRetain(&primaryContext, device) == CUDA_SUCCESS) {
    primary = primaryContext == ctx;
    d_.cuDevicePrimaryCtxRelease(device);
  }
  // Pending stream-ordered changes are one context's (defersOrdered): they go out before another
  // context starts with a copy of the metadata.
  if (!pending_.empty()) flushPending();
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  auto tables = DeviceTables::create(d_, ctx, id, device, primary, *metadata_, static_cast<uint32_t>(options_.maxErrors));
  restoreCapture(saved);
  if (!tables) {
    writeStderr(fmt::format("cucatch: warning: the device tables could not be set up in the context of device {}: "
                            "its kernels run unchecked\n",
                            device));
    contexts_.emplace(id, nullptr);
    return false;
  }
  current_ = tables.get();
  contexts_.emplace(id, std::move(tables));
  log(fmt::format("device tables ready in context {} (device {}, {} context{} checked)", id, device,
                  contexts_.size(), contexts_.size() == 1 ? "" : "s"));
  return true;
}

void Runtime::dropTables(const std::function<bool(const DeviceTables&)>& ended) {
  bool any = false;
  for (const auto& [id, tables] : contexts_) any = any || (tables && ended(*tables));
  if (!any) return;
  drain(false, ended);  // from host memory: no call into the context that ended
  orderedLives_.clear();  // (its streams are gone, and their handles may come back)
  for (auto it = contexts_.begin(); it != contexts_.end();) {
    if (it->second && ended(*it->second)) {
      log(fmt::format("context {} (device {}) ended: its tables are dropped", it->first, it->second->device()));
      if (current_ == it->second.get()) current_ = nullptr;
      // Its device memory went with the context. The host error buffer is left allocated: it
      // was registered in the context, and unregistering it would call into a dead one.
      it = contexts_.erase(it);
    } else {
      ++it;
    }
  }
}

void Runtime::contextEnding(CUcontext ctx) {
  std::lock_guard lock(mutex_);
  // Its kernels finish first, so that their records are complete when read.
  bool ours = false;
  for (const auto& [id, tables] : contexts_) ours = ours || (tables && tables->context() == ctx);
  if (ours && d_.cuCtxSynchronize) d_.cuCtxSynchronize(ctx);
  dropTables([&](const DeviceTables& t) { return t.context() == ctx; });
}

void Runtime::primaryContextEnded(CUdevice device) {
  std::lock_guard lock(mutex_);
  unsigned flags = 0;
  int active = 0;
  if (d_.cuDevicePrimaryCtxGetState && d_.cuDevicePrimaryCtxGetState(device, &flags, &active) == CUDA_SUCCESS && active)
    return;  // a reference is left: it lives on
  dropTables([&](const DeviceTables& t) { return t.primary() && t.device() == device; });
}

void Runtime::flushUpdates() {
  auto entries = metadata_->takeDirtyEntries();
  auto writes = metadata_->shadow().takeWrites();
  if (!heldEntries_.empty()) {
    entries.insert(entries.end(), heldEntries_.begin(), heldEntries_.end());
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    heldEntries_.clear();
  }
  if (!heldWrites_.empty()) {  // taken before the metadata's
    writes.insert(writes.begin(), heldWrites_.begin(), heldWrites_.end());
    heldWrites_.clear();
  }
  if (entries.empty() && writes.empty()) return;
  DeviceTables* here = current_;  // null when the current context has no tables
  // A context that ended where cucatch did not see it end (the CUDA runtime resets the primary
  // context by its own paths; the handle then names the device's next primary context, with
  // another ID) takes its tables with it.
  dropTables([&](const DeviceTables& t) {
    unsigned long long id = 0;
    return &t != here && (d_.cuCtxGetId(t.context(), &id) != CUDA_SUCCESS || id != t.contextId());
  });
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  for (auto& [id, tables] : contexts_) {
    if (!tables) continue;
    ContextScope scope(d_, tables->context());
    tables->apply(*metadata_, entries, writes, {});
  }
  restoreCapture(saved);
}

void Runtime::publishInStream(CUstream stream, bool freeing) {
  auto entries = metadata_->takeDirtyEntries();
  auto writes = metadata_->shadow().takeWrites();
  if (entries.empty() && writes.empty()) return;
  DeviceTables* here = current_;
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  using Order = DeviceTables::Order;
  if (here) here->apply(*metadata_, entries, writes, Order{Order::InStream, stream});
  // A stream-ordered free reaches other contexts at its point of the stream, through an event
  // (before their next launch while the stream is being captured: a capture cannot be waited
  // on from outside); an allocation before their next launch.
  CUevent point = nullptr;
  bool others = contexts_.size() > (here ? 1u : 0u);
  if (others && freeing) {
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    d_.cuStreamIsCapturing(stream, &capturing);
    if (capturing == CU_STREAM_CAPTURE_STATUS_NONE &&
        (ours(d_.cuEventCreate(&point, CU_EVENT_DISABLE_TIMING), "ordering a table update") != CUDA_SUCCESS ||
         ours(d_.cuEventRecord(point, stream), "ordering a table update") != CUDA_SUCCESS))
      point = nullptr;
  }
  for (auto& [id, tables] : contexts_) {
    if (!tables || tables.get() == here) continue;
    ContextScope scope(d_, tables->context());
    tables->apply(*metadata_, entries, writes, point ? Order{Order::AfterEvent, nullptr, point} : Order{});
  }
  if (point) d_.cuEventDestroy(point);
  restoreCapture(saved);
}

std::optional<CUstreamCaptureStatus> Runtime::captureStatus(CUstream stream) {
  if (captures_.load(std::memory_order_acquire) == 0) return CU_STREAM_CAPTURE_STATUS_NONE;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d_.cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS) return std::nullopt;
  return status;
}

bool Runtime::capturedInto(CUstream stream, bool deferred) {
  // (A deferred change's stream is known not to be captured: defersOrdered asked.)
  if (deferred) return false;
  auto status = captureStatus(stream);
  return status && *status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool Runtime::defersOrdered(CUstream stream) {
  if (!options_.deferOrdered || !stream || stream == CU_STREAM_PER_THREAD || !current_ || contexts_.size() != 1)
    return false;
  auto status = captureStatus(stream);
  return status && *status == CU_STREAM_CAPTURE_STATUS_NONE;
}

void Runtime::holdOrdinaryChanges() {
  if (!metadata_->hasChanges()) return;
  auto entries = metadata_->takeDirtyEntries();
  heldEntries_.insert(heldEntries_.end(), entries.begin(), entries.end());
  auto writes = metadata_->shadow().takeWrites();
  heldWrites_.insert(heldWrites_.end(), writes.begin(), writes.end());
}

void Runtime::flushPending() {
  // What was held or made before the pending changes first: each stream waits for it below.
  flushUpdates();
  if (pending_.empty()) return;
  std::vector<PendingUpdates::StreamUpdate> updates = pending_.take();
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  for (const auto& u : updates) {
    auto it = contexts_.find(u.context);
    if (it == contexts_.end() || !it->second) continue;  // the context ended, and its streams with it
    DeviceTables& tables = *it->second;
    ContextScope scope(d_, tables.context());
    tables.orderAfterUpdates(u.stream);
    tables.apply(*metadata_, u.entries, u.writes, DeviceTables::Order{DeviceTables::Order::InStream, u.stream});
  }
  restoreCapture(saved);
  // Only now: another thread's ordering call (beforeDriverCall, which reads this without the
  // lock) that finds the flag set waits for the lock, so its call reaches the driver after these
  // changes are in their streams. Cleared before, it went ahead of them (a review's find: an
  // event recorded meanwhile in the allocation's stream came before its entry's writes).
  orderedPending_.store(!pending_.empty(), std::memory_order_release);
  if (options_.debug)
    log(fmt::format("{} stream{} took the stream-ordered table changes pending", updates.size(),
                    updates.size() == 1 ? "" : "s"));
}

void Runtime::pendingChanged() {
  orderedPending_.store(!pending_.empty(), std::memory_order_release);
  if (pending_.size() >= kMostPending) flushPending();
}

void Runtime::enqueuePending() {
  std::lock_guard lock(mutex_);
  if (metadata_ && !pending_.empty()) flushPending();
}

void Runtime::orderAfterUpdates(CUstream stream) {
  flushPending();
  if (!current_ || !current_->updatesInFlight()) return;
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  current_->orderAfterUpdates(stream);
  restoreCapture(saved);
}

void Runtime::graphLaunching(CUstream stream) {
  std::lock_guard lock(mutex_);
  if (ensureDevice()) orderAfterUpdates(stream);
}

void Runtime::finishUpdates() {
  std::lock_guard lock(mutex_);
  if (!ensureDevice()) return;
  flushPending();
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  for (auto& [id, tables] : contexts_) {
    if (!tables || !tables->updatesInFlight()) continue;
    ContextScope scope(d_, tables->context());
    tables->finishUpdates();
  }
  restoreCapture(saved);
}

// ------------------------------------------------------------------------------ allocations

// (_dl_find_object takes no lock and no symbol lookup, unlike dladdr: it runs for every frame of
// every allocation.)
bool isCucatch(const void* address) {
  static const std::pair<uintptr_t, uintptr_t> self = [] {
    dl_find_object o{};
    if (_dl_find_object(reinterpret_cast<void*>(&Runtime::get), &o) != 0) return std::pair<uintptr_t, uintptr_t>{0, 0};
    return std::pair{reinterpret_cast<uintptr_t>(o.dlfo_map_start), reinterpret_cast<uintptr_t>(o.dlfo_map_end)};
  }();
  auto a = reinterpret_cast<uintptr_t>(address);
  return a >= self.first && a < self.second;
}

std::vector<void*> Runtime::callStack(size_t atLeast) const {
  size_t depth = options_.backtraceDepth ? static_cast<size_t>(options_.backtraceDepth) + 16 : 0;
  std::vector<void*> frames(std::max(atLeast, depth));
  if (frames.empty()) return frames;
  static std::once_flag loaded;
  std::call_once(loaded, [this] {
    if (const std::string& error = unwinder_->load(); !error.empty()) {
      writeStderr(fmt::format("cucatch: error: {}\n", error));
      _exit(2);
    }
    if (options_.debug) writeStderr(fmt::format("cucatch: debug: host backtraces by {}\n", unwinder_->name()));
  });
  frames.resize(static_cast<size_t>(std::max(unwinder_->capture(frames.data(), static_cast<int>(frames.size())), 0)));
  return frames;
}

Backtrace Runtime::backtrace(const std::vector<void*>& stack) const {
  const auto depth = static_cast<size_t>(options_.backtraceDepth);  // (Options: 0 to 256)
  Backtrace out;
  out.reserve(std::min(stack.size(), depth));
  for (size_t i = 0; i < stack.size() && out.size() < depth; ++i)
    if (!isCucatch(stack[i])) out.push_back(reinterpret_cast<uintptr_t>(stack[i]));
  return out;
}

std::string Runtime::symbolize(uintptr_t frame) {
  Dl_info info{};
  link_map* map = nullptr;
  if (!dladdr1(reinterpret_cast<void*>(frame), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) ||
      !info.dli_fname)
    return fmt::format("{:#x}", frame);
  uintptr_t offset = frame - reinterpret_cast<uintptr_t>(info.dli_fbase);
  // The full symbol table first: it names the executable's own functions, which dladdr cannot
  // (and where dladdr names the nearest exported symbol, that may not contain the frame).
  std::string file = map && map->l_name && map->l_name[0] ? map->l_name : "/proc/self/exe";
  auto symbols = elfSymbols_.find(file);
  if (symbols == elfSymbols_.end()) symbols = elfSymbols_.emplace(file, ElfSymbols::load(file)).first;
  // A frame is a return address: the call before it may be its function's last instruction.
  if (auto hit = symbols->second.find((symbols->second.positionIndependent() ? offset : frame) - 1))
    return fmt::format("{:#x} in {}+{:#x} ({}+{:#x})", frame, demangle(hit->name), hit->offset + 1, info.dli_fname,
                       offset);
  if (info.dli_sname)
    return fmt::format("{:#x} in {}+{:#x} ({}+{:#x})", frame, demangle(info.dli_sname),
                       frame - reinterpret_cast<uintptr_t>(info.dli_saddr), info.dli_fname, offset);
  return fmt::format("{:#x} in ({}+{:#x})", frame, info.dli_fname, offset);
}

namespace {

// Whether the loaded object whose link map is `map` was linked with libcucatch (cucatch-nvcc
// builds are): its DT_NEEDED entries name it.
bool linksCucatch(const link_map* map) {
  const ElfW(Dyn)* dyn = map->l_ld;
  const char* strtab = nullptr;
  for (const ElfW(Dyn)* d = dyn; d && d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(dynamicAddress(d->d_un.d_ptr, map->l_addr));
  if (!strtab) return false;
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_NEEDED && std::string_view(strtab + d->d_un.d_val).ends_with("libcucatch.so")) return true;
  return false;
}

}  // namespace

bool Runtime::allocatedByLibrary(const std::vector<void*>& stack) {
  // The first frame outside libcucatch, libcuda and the shared CUDA runtime is the code that
  // asked for the memory (the static CUDA runtime is part of the object that links it).
  for (void* frame : stack) {
    if (isCucatch(frame)) continue;
    dl_find_object o{};
    if (_dl_find_object(frame, &o) != 0 || !o.dlfo_link_map) continue;
    const link_map* map = o.dlfo_link_map;
    // Decided once per object. (Keyed by where and what the object is: a link map may be
    // reused after an unload.)
    std::lock_guard lock(objectsMutex_);
    auto key = std::make_pair(reinterpret_cast<uintptr_t>(o.dlfo_map_start), static_cast<const void*>(map));
    auto known = objectOrigin_.find(key);
    if (known == objectOrigin_.end()) {
      std::string_view file = map->l_name ? map->l_name : "";
      ObjectOrigin origin = file.find("libcuda.so") != std::string_view::npos ||
                                    file.find("libcudart.so") != std::string_view::npos
                                ? ObjectOrigin::Cuda
                            // The program itself (no name), and code built by cucatch-nvcc, get
                            // tagged pointers.
                            : !file.empty() && !linksCucatch(map) ? ObjectOrigin::Library
                                                                  : ObjectOrigin::Program;
      known = objectOrigin_.emplace(key, origin).first;
    }
    if (known->second == ObjectOrigin::Cuda) continue;
    return known->second == ObjectOrigin::Library;
  }
  return false;
}

CUdeviceptr Runtime::allocated(CUdeviceptr base, size_t size, MemoryKind kind, CUstream stream, bool streamOrdered) {
  // Before taking the runtime's lock: unwinding and finding the caller's object take the
  // loader's lock, and a constructor run by dlopen may allocate while holding it. One capture
  // serves both the allocation's backtrace and its origin (32 frames reach past any driver and
  // CUDA runtime frames to the caller).
  std::vector<void*> stack = callStack(options_.tags ? 32 : 0);
  bool byLibrary = options_.tags && allocatedByLibrary(stack);
  Backtrace at = backtrace(stack);
  std::lock_guard lock(mutex_);
  if (!ensureDevice()) return base;
  // An ordinary allocation reaches the device before the next launch (flushUpdates). A
  // stream-ordered one goes into its stream's order, behind what is pending: at the next call
  // that could order a kernel after it (PendingUpdates.h), or at once.
  bool defer = streamOrdered && defersOrdered(stream);
  if (defer) holdOrdinaryChanges();
  else if (streamOrdered) orderAfterUpdates(stream);
  // (An allocation at the address of one freed on this stream, both kept pending: the free's
  // changes and this one's reach the device in that order, in the stream.)
  // (defer: current_ is the context's tables.)
  auto life = orderedLives_.find(base);
  const bool inFreedOrder = defer && life != orderedLives_.end() && life->second.freedThere &&
                            life->second.stream == stream && life->second.context == current_->contextId();
  if (defer) orderedLives_.insert_or_assign(base, OrderedLife{current_->contextId(), stream, false});
  else if (life != orderedLives_.end()) orderedLives_.erase(life);
  CUdeviceptr p = metadata_->onAllocate(base, size, kind, std::move(at), byLibrary, inFreedOrder,
                                        streamOrdered && capturedInto(stream, defer));
  if (defer) {
    const Allocation* a = metadata_->find(base);
    pending_.add({current_->contextId(), stream, a ? a->bstIndex : 0u, metadata_->takeDirtyEntries(),
                  metadata_->shadow().takeWrites()});
    pendingChanged();
  } else {
    if (tagOf(p) >= abi::kFirstDirectTag) pending_.markSeen(tagOf(p));  // (a direct tag is the index)
    if (streamOrdered) publishInStream(stream, false);
  }
  if (options_.debug) log(fmt::format("{} allocation of {} bytes at {:#x} -> {:#x}", memoryKindName(kind), size, base, p));
  return p;
}

void Runtime::untrackedReserved(CUdeviceptr base, size_t size, bool endsAtFree) {
  std::lock_guard lock(mutex_);
  // (Made here where this is the first call cucatch sees in the context: PyTorch's expandable
  // segments may reserve before anything is allocated, a review's find. An ordinary change: it
  // reaches the device before the next launch.)
  ensureDevice();
  if (metadata_) metadata_->onUntrackedReserve(base, size, endsAtFree);
}

void Runtime::untrackedMapped(CUdeviceptr pointer, bool endsAtFree) {
  CUdeviceptr base = 0;
  size_t size = 0;
  if (d_.check(d_.cuMemGetAddressRange(&base, &size, pointer), "cuMemGetAddressRange of untracked memory") == CUDA_SUCCESS)
    untrackedReserved(base, size, endsAtFree);
}

void Runtime::streamDestroying(CUstream stream) {
  std::lock_guard lock(mutex_);
  std::erase_if(orderedLives_, [&](const auto& life) { return life.second.stream == stream; });
}

void Runtime::untrackedReleased(CUdeviceptr pointer) {
  std::lock_guard lock(mutex_);
  if (metadata_) metadata_->onUntrackedRelease(pointer);
}

CUdeviceptr Runtime::programPointer(CUdeviceptr raw) {
  std::lock_guard lock(mutex_);
  if (!metadata_ || tagOf(raw)) return raw;
  const Allocation* a = metadata_->find(raw);
  return a && a->live && a->tag ? withTag(raw, a->tag) : raw;
}

CUresult Runtime::free(CUdeviceptr pointer, const std::function<CUresult(CUdeviceptr)>& realFree, CUstream stream,
                      bool streamOrdered) {
  // The backtrace is taken before the runtime's lock, as an allocation's is: unwinding and
  // naming frames take the loader's lock, which a constructor run by dlopen holds while it may
  // free memory. (Taken for every free of a non-null pointer; used for cucatch's own.)
  Backtrace at = pointer ? backtrace(callStack(0)) : Backtrace{};
  // Held across the real free, so that no other thread publishes this free's table changes
  // before the memory's last users have finished.
  std::lock_guard lock(mutex_);
  CUdeviceptr real = strip(pointer);
  if (!metadata_ || pointer == 0) return realFree(real);
  // Memory cucatch does not track (imported from another process's pool, mapped from another
  // API, a graph's own), where a freed allocation may have lain (ok_ipc_after_free): the driver
  // decides. Not for a tagged pointer: that is a stale one to the freed allocation (the memory
  // there is never tagged), whose free again is a double free.
  if (const auto* range = tagOf(pointer) ? nullptr : metadata_->untrackedAt(real)) {
    const bool ends = range->endsAtFree;
    CUresult r = realFree(real);
    if (r == CUDA_SUCCESS && ends) metadata_->onUntrackedRelease(real);
    return r;
  }
  // A pointer cucatch never saw anything about may come from elsewhere (another context, an
  // allocator it does not track): the driver decides.
  const Allocation* known = metadata_->find(real);
  if (!known) return realFree(real);
  ensureDevice();  // the tables of the context freeing it, if it has any (all are updated)
  bool defer = streamOrdered && defersOrdered(stream);
  if (defer) holdOrdinaryChanges();
  else if (streamOrdered) orderAfterUpdates(stream);
  const uint32_t index = known->bstIndex;
  // An allocation freed while its change is pending needs no mapping on the device where its
  // pointers carry its index as their tag (a direct tag: they find its entry, freed, without the
  // walk). Any other's mapping goes into its stream before the real free (PendingUpdates::maps).
  const bool mappingPending = pending_.maps(index);
  const bool cancels = defer && mappingPending && known->tag >= abi::kFirstDirectTag && known->tag == index;
  if (mappingPending && !cancels) flushPending();
  FreeResult r = metadata_->onFree(pointer, at, streamOrdered && capturedInto(stream, defer));
  if (r.status != FreeStatus::Ok) {
    Violation v;
    v.kind = r.status == FreeStatus::DoubleFree ? ViolationKind::DoubleFree : ViolationKind::InvalidFree;
    v.address = real;
    v.allocation = r.allocation;
    v.backtrace = std::move(at);
    report({std::move(v)});
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult result = realFree(real);
  if (result != CUDA_SUCCESS) {
    // The driver refused: the memory is still allocated as far as the program is concerned.
    log(fmt::format("the real free of {:#x} failed ({}); cucatch keeps the allocation", pointer, int(result)));
    metadata_->undoFree(real);
  }
  // (Looked up after flushPending, which may drop a context's tables and the lives with them.)
  if (auto life = orderedLives_.find(r.base); life != orderedLives_.end()) {
    if (defer && result == CUDA_SUCCESS && current_ && life->second.stream == stream &&
        life->second.context == current_->contextId())
      life->second.freedThere = true;
    else
      orderedLives_.erase(life);
  }
  // An ordinary free reaches the device before the next launch, which is after the real free
  // returned; a stream-ordered one at its point of the stream. Where the allocation's own change
  // is still pending, no kernel saw it: its mapping never reaches the device, and its entry
  // (freed) goes with the ordinary changes, or in its stream where a kernel ahead there may
  // still use the allocation that had its index before (PendingUpdates::cancel).
  if (defer) {
    auto entries = metadata_->takeDirtyEntries();
    auto writes = metadata_->shadow().takeWrites();
    using Cancelled = PendingUpdates::Cancelled;
    Cancelled how = cancels && result == CUDA_SUCCESS ? pending_.cancel(index, heldEntries_) : Cancelled::NotPending;
    if (how == Cancelled::Anywhere) {
      heldEntries_.insert(heldEntries_.end(), entries.begin(), entries.end());
      heldWrites_.insert(heldWrites_.end(), writes.begin(), writes.end());
      if (heldEntries_.size() >= kMostHeld) flushUpdates();
    } else {
      pending_.add({current_->contextId(), stream, 0, std::move(entries), std::move(writes)});
    }
    pendingChanged();
  } else if (streamOrdered) {
    publishInStream(stream, true);
  }
  if (options_.debug) log(fmt::format("free of {:#x}", pointer));
  return result;
}

// ------------------------------------------------------------------------------ launches

void Runtime::noteKernelHandle(void* kernel, CUlibrary library) {
  std::lock_guard lock(mutex_);
  kernelHandles_[kernel] = library;
}

void Runtime::moduleUnloaded(CUmodule module) {
  std::lock_guard lock(mutex_);
  forgetModules([&](CUmodule m) { return m == module; });
}

void Runtime::libraryUnloaded(CUlibrary library) {
  std::lock_guard lock(mutex_);
  std::erase_if(kernelHandles_, [&](const auto& k) { return k.second == library; });
  // Every module: which are the library's (one per context it was loaded in) is not known for
  // each (a CUfunction from cuKernelGetFunction, a kernel from cuLibraryEnumerateKernels: a
  // review's find), and asking cuLibraryGetModule would load the library into every context. The
  // live ones are registered again at their next launch, which changes nothing of them. (A
  // program unloads a library rarely: the CUDA runtime's at exit.)
  forgetModules([](CUmodule) { return true; });
}

void Runtime::forgetModules(const std::function<bool(CUmodule)>& unloaded) {
  std::set<const Module*> gone;
  for (auto it = modules_.begin(); it != modules_.end();) {
    if (!unloaded(it->first.second)) {
      ++it;
      continue;
    }
    gone.insert(it->second.get());
    unloadedModules_.push_back(std::move(it->second));
    it = modules_.erase(it);
  }
  // (A handle whose module was not found is asked again too: it may be another function now.)
  for (auto it = functionModule_.begin(); it != functionModule_.end();) {
    if (it->second.module && !gone.count(it->second.module)) {
      ++it;
      continue;
    }
    paramLayout_.erase(it->first);
    functionNames_.erase({it->first.first, it->second.function});
    functionNames_.erase({it->first.first, static_cast<CUfunction>(it->first.second)});
    it = functionModule_.erase(it);
  }
  // Every twin's handle is looked up again: one of the module's may have been any kernel's.
  twins_.clear();
}

Runtime::Module* Runtime::moduleOf(void* handle, CUfunction& resolved, bool& instrumented) {
  resolved = static_cast<CUfunction>(handle);
  instrumented = false;
  const uint64_t context = current_->contextId();
  auto cached = functionModule_.find({context, handle});
  if (cached != functionModule_.end()) {
    resolved = cached->second.function;
    instrumented = cached->second.instrumented;
    return cached->second.module;
  }
  CUfunction f = static_cast<CUfunction>(handle);
  if (kernelHandles_.count(handle)) {
    CUfunction g = nullptr;
    if (d_.cuKernelGetFunction(&g, static_cast<CUkernel>(handle)) == CUDA_SUCCESS) f = g;
  }
  CUmodule mod = nullptr;
  CUresult byFunction = d_.cuFuncGetModule(&mod, f);
  if (byFunction != CUDA_SUCCESS) {
    CUfunction g = nullptr;
    CUresult asKernel = d_.cuKernelGetFunction(&g, static_cast<CUkernel>(handle));
    CUresult byKernel = asKernel == CUDA_SUCCESS ? d_.cuFuncGetModule(&mod, g) : asKernel;
    if (byKernel == CUDA_SUCCESS) {
      f = g;
    } else {
      log(fmt::format("launch of {} whose module cannot be found (cuFuncGetModule: {}, as a CUkernel: {}); "
                      "treated as not instrumented",
                      handle, int(byFunction), int(byKernel)));
      functionModule_[{context, handle}] = {nullptr, f, false};
      return nullptr;
    }
  }
  auto& slot = modules_[{context, mod}];
  if (!slot) {
    slot = std::make_unique<Module>();
    registerModule(mod, *slot);
  }
  instrumented = slot->instrumented && slot->kernels.count(kernelName(f));
  functionModule_[{context, handle}] = {slot.get(), f, instrumented};
  resolved = f;
  return slot.get();
}

const KernelRecord* Runtime::kernelRecord(const Module& m, const std::string& name) const {
  for (uint32_t unit : m.units)
    if (auto t = units_.find(unit); t != units_.end())
      if (auto k = t->second.kernels.find(name); k != t->second.kernels.end()) return &k->second;
  return nullptr;
}

void Runtime::registerModule(CUmodule mod, Module& m) {
  CUdeviceptr state = 0, sites = 0;
  size_t stateBytes = 0, sitesBytes = 0;
  if (d_.cuModuleGetGlobal(&state, &stateBytes, mod, CUCATCH_STATE_SYMBOL) != CUDA_SUCCESS) {
    log(fmt::format("module {} is not instrumented", static_cast<void*>(mod)));
    return;
  }
  // The compilation units linked into this module, by their marker kernels
  // (__cucatch_unit_<id>_v<ABI version>); their site tables are read now, while the context is
  // sure to be alive.
  unsigned count = 0;
  std::vector<CUfunction> functions;
  bool enumerated = false;
  if (d_.cuModuleGetFunctionCount(&count, mod) == CUDA_SUCCESS) {
    functions.resize(count);
    enumerated = d_.cuModuleEnumerateFunctions(functions.data(), count, mod) == CUDA_SUCCESS;
    if (!enumerated) functions.clear();
  }
  std::vector<std::string> units;
  std::string otherVersion;
  for (CUfunction f : functions) {
    const char* name = nullptr;
    if (d_.cuFuncGetName(&name, f) != CUDA_SUCCESS || !name) continue;
    std::string_view n(name);
    if (n.rfind(CUCATCH_UNIT_PREFIX, 0) != 0) continue;
    n.remove_prefix(std::strlen(CUCATCH_UNIT_PREFIX));
    std::string_view version = n.size() > 8 ? n.substr(8) : std::string_view();
    std::string expected = fmt::format("{}{}", CUCATCH_UNIT_VERSION_INFIX, abi::kAbiVersion);
    if (version != expected) {
      otherVersion = version.rfind(CUCATCH_UNIT_VERSION_INFIX, 0) == 0 ? std::string(version.substr(2)) : "2 or older";
      continue;
    }
    units.emplace_back(n.substr(0, 8));
  }
  // A module with a unit of another ABI version is refused as a whole: the state symbol's
  // layout and the code reading it may not be ours. It runs as an uninstrumented module
  // (unchecked, arguments untagged).
  if (!otherVersion.empty() || stateBytes != abi::kStateBytes) {
    writeStderr(fmt::format("cucatch: warning: a module was instrumented by a cucatch of ABI version {}, this runtime "
                         "implements version {}: its kernels run unchecked (rebuild it with this cucatch)\n",
                         otherVersion.empty() ? "?" : otherVersion, abi::kAbiVersion));
    return;
  }
  if (units.empty() && !enumerated) {
    writeStderr("cucatch: warning: the driver could not list the kernels of a module that holds instrumented code, "
                "so cucatch cannot tell which are instrumented: they run unchecked\n");
    return;
  }
  if (units.empty()) {
    // Instrumented code is there (it defines the state), but the units' marker kernels are not:
    // a device link that removed the kernels the host does not refer to (nvlink's host
    // information, which cucatch-nvcc turns off). Without the markers the runtime does not know
    // which kernels are instrumented; they all run as uninstrumented ones, which is not silent.
    writeStderr("cucatch: warning: a module holds instrumented code, but the device link removed its compilation "
                "units' marker kernels (nvlink removes kernels the host does not refer to unless given "
                "-ignore-host-info; cucatch-nvcc passes it): its kernels run unchecked. Device-link it with "
                "cucatch-nvcc, or add -Xnvlink=-ignore-host-info\n");
    return;
  }
  m.instrumented = true;
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  for (const std::string& hex : units) {
    uint32_t unit = static_cast<uint32_t>(std::strtoul(hex.c_str(), nullptr, 16));
    m.units.insert(unit);
    if (!units_.count(unit)) {
      std::string symbol = CUCATCH_SITES_PREFIX + hex;
      CUresult r = d_.cuModuleGetGlobal(&sites, &sitesBytes, mod, symbol.c_str());
      std::string json(sitesBytes, '\0');
      if (r == CUDA_SUCCESS && sitesBytes) r = d_.cuMemcpyDtoHAsync(json.data(), sites, sitesBytes, current_->stream());
      if (r == CUDA_SUCCESS) r = d_.cuStreamSynchronize(current_->stream());
      json.resize(strnlen(json.data(), json.size()));
      try {
        if (r != CUDA_SUCCESS) throw std::runtime_error(fmt::format("reading it failed with error {}", int(r)));
        units_[unit] = SiteTable::parse(json);
      } catch (const std::exception& e) {
        // Without the table the unit's kernels are not known: they get untagged arguments.
        writeStderr(fmt::format("cucatch: warning: the site table {} is unreadable ({}): its reports will lack "
                             "source positions\n",
                             symbol, e.what()));
        continue;
      }
    }
    for (const auto& [kernel, record] : units_[unit].kernels) m.kernels.insert(kernel);
  }
  // One ratio and one extra for the module: the largest of its kernels'.
  uint32_t stackRatio = 1000;
  uint64_t stackExtra = 0;
  auto reserveFor = [&](uint32_t ratioPerMille, uint64_t extraBytes) {
    m.stackReserved = true;
    stackRatio = std::max(stackRatio, ratioPerMille);
    stackExtra = std::max(stackExtra, extraBytes);
  };
  for (uint32_t unit : m.units)
    if (auto t = units_.find(unit); t != units_.end())
      for (const auto& [kernel, record] : t->second.kernels)
        if (record.stackRatioPerMille) reserveFor(*record.stackRatioPerMille, record.stackExtraBytes);
  // Relocatable code: from the units' parts of the module's call graph, which the device link
  // joined (instrument/StackReserve.h).
  std::map<uint32_t, const SiteTable*> parts;
  for (uint32_t unit : m.units)
    if (auto t = units_.find(unit); t != units_.end() && !t->second.callGraph.empty()) parts[unit] = &t->second;
  if (!parts.empty()) {
    const callgraph::StackReserves reserves = callgraph::stackReserves(moduleCallGraph(parts));
    for (const auto& [kernel, r] : reserves.kernels) {
      reserveFor(r.ratioPerMille, r.extraBytes);
      log(fmt::format("kernel {}: its stack under recursion grew by at most {:.3f}x + {} bytes (relocatable code)",
                      kernel, r.ratioPerMille / 1000.0, r.extraBytes));
    }
    for (const auto& kernel : reserves.unbounded)
      log(fmt::format("kernel {}: its stack under recursion cannot be bounded (a recursive function with no frame "
                      "of its own in the original has one instrumented)",
                      kernel));
  }
  if (m.stackReserved) reserveStack(stackRatio, stackExtra);
  abi::ModuleState s = current_->moduleState((options_.continueMode() ? abi::kFlagContinue : 0) |
                                             (options_.tags ? abi::kFlagHeapTags : 0));
  ours(d_.cuMemcpyHtoDAsync(state, &s, sizeof s, current_->stream()), "publishing the runtime state to a module");
  ours(d_.cuStreamSynchronize(current_->stream()), "publishing the runtime state to a module");
  restoreCapture(saved);
  log(fmt::format("registered instrumented module {} with {} compilation units and {} instrumented kernels",
                  static_cast<void*>(mod), m.units.size(), m.kernels.size()));
}

// ------------------------------------------------------------------------------ the stack limit

std::optional<uint64_t> Runtime::currentContextId() const {
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (!d_.cuCtxGetCurrent || d_.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || d_.cuCtxGetId(ctx, &id) != CUDA_SUCCESS)
    return std::nullopt;
  return id;
}

void Runtime::reserveStack(uint32_t ratioPerMille, uint64_t extraBytes) {
  std::optional<uint64_t> id = currentContextId();
  if (!id || !d_.cuCtxGetLimit || !d_.cuCtxSetLimit) return;
  StackLimit& s = stackLimits_[*id];
  s.need(ratioPerMille, extraBytes);
  size_t now = 0;
  if (d_.cuCtxGetLimit(&now, CU_LIMIT_STACK_SIZE) != CUDA_SUCCESS) return;
  s.observed(now);
  const std::optional<size_t> needed = s.toSet();
  if (!needed) return;
  CUresult r = d_.cuCtxSetLimit(CU_LIMIT_STACK_SIZE, *needed);
  if (r == CUDA_SUCCESS) {
    size_t readBack = *needed;
    d_.cuCtxGetLimit(&readBack, CU_LIMIT_STACK_SIZE);
    s.setDone(*s.asked(), *needed, readBack);
    log(fmt::format("stack limit {} -> {} bytes per thread (the driver's rounding of {}): instrumented kernels that "
                    "recurse need that for what the program's limit of {} allowed",
                    now, readBack, *needed, *s.asked()));
  } else if (!s.warned) {
    s.warned = true;
    writeStderr(fmt::format("cucatch: warning: raising the stack limit to {} bytes per thread, which instrumented "
                            "kernels that recurse need to go as deep as they did in {} bytes, failed ({}): a "
                            "recursion near the limit may run out of stack under cucatch only\n",
                            *needed, *s.asked(), d_.errorName(r)));
  }
}

CUresult Runtime::setStackLimit(size_t bytes, const std::function<CUresult(size_t)>& realSet) {
  std::lock_guard lock(mutex_);
  std::optional<uint64_t> id = currentContextId();
  if (!id) return realSet(bytes);
  // (Where no kernel needing more stack was registered here yet, none is needed: what the
  // program asked, as asked; remembered, should one come.)
  StackLimit& s = stackLimits_[*id];
  const size_t needed = s.neededFor(bytes);
  size_t set = needed;
  CUresult r = realSet(needed);
  if (r != CUDA_SUCCESS && needed > bytes) {
    if (!s.warned) {
      s.warned = true;
      writeStderr(fmt::format("cucatch: warning: the stack limit of {} bytes per thread the program asked for was "
                              "raised to {}, which instrumented kernels that recurse need, and that failed ({}): the "
                              "program's own is set, and a recursion near it may run out of stack under cucatch only\n",
                              bytes, needed, d_.errorName(r)));
    }
    set = bytes;
    r = realSet(bytes);
  }
  if (r == CUDA_SUCCESS) {
    size_t readBack = set;
    if (d_.cuCtxGetLimit) d_.cuCtxGetLimit(&readBack, CU_LIMIT_STACK_SIZE);
    s.setDone(bytes, set, readBack);
  }
  return r;
}

std::optional<size_t> Runtime::programStackLimit() {
  std::lock_guard lock(mutex_);
  std::optional<uint64_t> id = currentContextId();
  auto s = id ? stackLimits_.find(*id) : stackLimits_.end();
  if (s == stackLimits_.end() || !s->second.known()) return std::nullopt;
  // Where the driver raised it since, that is what the program would read (and what the
  // kernels' reserve is for from now on).
  reserveStack();
  return s->second.programView();
}

// ------------------------------------------------------------------------------ module loads

unsigned Runtime::deviceArchitecture() {
  if (!d_.cuDeviceGetAttribute) return 0;
  CUdevice device = 0;
  if (!d_.cuCtxGetDevice || d_.cuCtxGetDevice(&device, nullptr) != CUDA_SUCCESS) {
    // No current context (a cuLibrary is loaded for every device): the first device's.
    if (!d_.cuDeviceGet || d_.cuDeviceGet(&device, 0) != CUDA_SUCCESS) return 0;
  }
  return architectureOf(device);
}

unsigned Runtime::architectureOf(CUdevice device) {
  int major = 0, minor = 0;
  if (d_.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      d_.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
    return 0;
  return static_cast<unsigned>(major * 10 + minor);
}

namespace {
// cucatch-fatbin beside this library (JitLoader::findHelper).
std::string jitHelper() {
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&jitHelper), &self);
  return self.dli_fname ? JitLoader::findHelper(self.dli_fname) : std::string();
}
}  // namespace

JitLoader& Runtime::jitLoader() {
  std::lock_guard lock(mutex_);
  if (!jit_)
    jit_.emplace(jitHelper(), options_.jit, std::getenv("CUCATCH_PTX_FLAGS") ? std::getenv("CUCATCH_PTX_FLAGS") : "",
                 [this] { return deviceArchitecture(); },
                 [this](const std::vector<jit::LinkInput>& inputs, const void* original, std::string& why) {
                   return linkRelocatable(inputs, original, why);
                 });
  return *jit_;
}

std::string Runtime::linkRelocatable(const std::vector<jit::LinkInput>& inputs, const void* original,
                                     std::string& why) {
  unsigned arch = deviceArchitecture();
  // The link is SASS for one architecture, where the image it replaces may serve every device.
  int count = 0;
  if (d_.cuDeviceGetCount && d_.cuDeviceGetCount(&count) == CUDA_SUCCESS)
    for (int i = 0; i < count; ++i) {
      CUdevice device = 0;
      unsigned other = d_.cuDeviceGet(&device, i) == CUDA_SUCCESS ? architectureOf(device) : 0;
      if (other && other != arch) {
        why = fmt::format("the devices are of different architectures (sm_{} and sm_{}), and a link serves one", arch,
                          other);
        return {};
      }
    }
  // The link loads and unloads code: relaxed, so that no capture on another stream ends.
  CUstreamCaptureMode saved;
  relaxCapture(saved);
  std::string cubin = linkInPlaceOf(d_, inputs, original, arch, why);
  restoreCapture(saved);
  return cubin;
}

const char* Runtime::loaded(const char* what, const char* name, const char* replaced) {
  if (options_.debug)
    log(fmt::format("{}{}{}: {}", what, name ? " " : "", name ? name : "",
                    replaced ? "instrumented PTX in its place" : "as it is"));
  return replaced;
}

const void* Runtime::imageToLoad(const void* image, const void* caller) {
  return loaded("module image", nullptr, jitLoader().replacement(image, caller));
}

const void* Runtime::fileImageToLoad(const char* path) {
  return loaded("module file", path, jitLoader().replacementForFile(path));
}

const char* Runtime::linkInputToLoad(const void* data, size_t size, bool ptx, const char* name) {
  return loaded("link input", name, jitLoader().replacementForLink(data, size, ptx, name));
}

const char* Runtime::linkFileToLoad(const char* path, bool ptx) {
  return loaded("link input file", path, jitLoader().replacementForLinkFile(path, ptx));
}

CUdeviceptr Runtime::untaggedPointerArray(const void* array, int64_t count, CUstream stream) {
  if (!options_.tags || !array || count <= 0 || !d_.cuMemAllocAsync) return 0;
  const size_t bytes = static_cast<size_t>(count) * sizeof(uint64_t);
  CUdeviceptr copy = 0;
  if (d_.check(d_.cuMemAllocAsync(&copy, bytes, stream), "the copy of a pointer array") != CUDA_SUCCESS) return 0;
  // The tag is the top byte of each pointer: a pitched memset clears byte 7 of every element.
  if (d_.check(d_.cuMemcpyAsync(copy, untag(reinterpret_cast<uint64_t>(array)), bytes, stream),
               "the copy of a pointer array") != CUDA_SUCCESS ||
      d_.check(d_.cuMemsetD2D8Async(copy + 7, sizeof(uint64_t), 0, 1, static_cast<size_t>(count), stream),
               "untagging a pointer array") != CUDA_SUCCESS) {
    d_.cuMemFreeAsync(copy, stream);
    return 0;
  }
  log(fmt::format("pointer array {} of {} pointers untagged into {:#x}", array, count, copy));
  return copy;
}

void Runtime::releasePointerArray(CUdeviceptr copy, CUstream stream) {
  d_.check(d_.cuMemFreeAsync(copy, stream), "freeing the copy of a pointer array");
}

bool Runtime::untagWord(unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if (tagOf(v) == 0) return false;
  uint64_t a = untag(v);
  // A pointer into an allocation cucatch handed out with this tag, or a little outside it: a
  // library's host code passes its kernels `values - 1` for one-based indices (cuSPARSE), or an
  // end pointer. Data that is not a pointer would have to carry a live tag in its top byte and
  // an address near that allocation in its low bits.
  constexpr uint64_t kSlack = 1 << 20;
  if (isDeviceHeapTag(tagOf(v))) {
    // A device-heap block's pointer (malloc in an instrumented kernel) that the host copied back
    // and passes on: the host has no allocation of it, but the block's malloc event in the heap
    // log (written when the kernel made it, which has ended since the host read the pointer)
    // says where it is.
    abi::HeapEvent e = current_ ? current_->heapEvent(tagOf(v), false) : abi::HeapEvent{};
    if (e.unit == 0 || a + kSlack < e.base || a > e.base + e.size + kSlack) return false;
  } else if (!metadata_->findNear(a, tagOf(v), kSlack)) {
    return false;
  }
  std::memcpy(p, &a, 8);
  return true;
}

void Runtime::untagArguments(void* handle, CUfunction f, void**& params, void**& extra, LaunchArguments& scratch) {
  if (params) {
    const InContext<void*> key{current_->contextId(), handle};
    auto it = paramLayout_.find(key);
    if (it == paramLayout_.end()) {
      std::vector<std::pair<size_t, size_t>> layout;
      // Reads the layout through `query`; returns the result that ended the walk.
      auto walk = [&](auto query) {
        size_t offset = 0, size = 0;
        CUresult r;
        for (size_t i = 0; (r = query(i, &offset, &size)) == CUDA_SUCCESS; ++i) layout.emplace_back(offset, size);
        return r;
      };
      CUresult asFunction = walk([&](size_t i, size_t* o, size_t* n) { return d_.cuFuncGetParamInfo(f, i, o, n); });
      // A CUkernel handle (context-independent loading) has its own query.
      CUresult asKernel = CUDA_SUCCESS;
      if (layout.empty())
        asKernel = walk([&](size_t i, size_t* o, size_t* n) {
          return d_.cuKernelGetParamInfo(static_cast<CUkernel>(handle), i, o, n);
        });
      if (layout.empty())
        log(fmt::format("no parameter layout for launch handle {} ({}, {}): its arguments pass as they are", handle,
                        int(asFunction), int(asKernel)));
      it = paramLayout_.emplace(key, std::move(layout)).first;
    }
    const auto& layout = it->second;
    bool changed = false;
    scratch.values.resize(layout.size());
    scratch.params.assign(params, params + layout.size());
    for (size_t i = 0; i < layout.size(); ++i) {
      auto [offset, size] = layout[i];
      auto& value = scratch.values[i];
      value.assign(static_cast<unsigned char*>(params[i]), static_cast<unsigned char*>(params[i]) + size);
      bool mine = false;
      for (size_t k = (8 - offset % 8) % 8; k + 8 <= size; k += 8) mine |= untagWord(value.data() + k);
      if (mine) {
        scratch.params[i] = value.data();
        changed = true;
      }
    }
    if (changed) params = scratch.params.data();
    return;
  }
  if (!extra) return;
  void* buffer = nullptr;
  size_t* bytes = nullptr;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) bytes = static_cast<size_t*>(extra[i + 1]);
  }
  if (!buffer || !bytes) return;
  scratch.buffer.assign(static_cast<unsigned char*>(buffer), static_cast<unsigned char*>(buffer) + *bytes);
  bool changed = false;
  for (size_t k = 0; k + 8 <= scratch.buffer.size(); k += 8) changed |= untagWord(scratch.buffer.data() + k);
  if (!changed) return;
  scratch.bufferSize = scratch.buffer.size();
  scratch.extra = {CU_LAUNCH_PARAM_BUFFER_POINTER, scratch.buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &scratch.bufferSize, CU_LAUNCH_PARAM_END};
  extra = scratch.extra.data();
}

const std::string& Runtime::kernelName(CUfunction f) {
  auto name = functionNames_.find({current_->contextId(), f});
  if (name == functionNames_.end()) {
    const char* n = nullptr;
    name = functionNames_.emplace(InContext<CUfunction>{current_->contextId(), f},
                                  d_.cuFuncGetName(&n, f) == CUDA_SUCCESS && n ? n : "?").first;
  }
  return name->second;
}

void Runtime::launching(void* function, std::optional<CUstream> stream, void**& params, void**& extra,
                        LaunchArguments& scratch, const char* api, CUfunction* twin) {
  std::lock_guard lock(mutex_);
  if (!ensureDevice()) return;
  if (stream) orderAfterUpdates(*stream);
  CUfunction f = nullptr;
  bool instrumented = false;
  Module* m = moduleOf(function, f, instrumented);
  // Kernels not known to be instrumented get untagged arguments. (For an instrumented kernel
  // whose module could not be found that costs the temporal tags of this launch, and a
  // device-heap block it were given untagged would be freed by its free as an untagged one,
  // leaving the block's entry live.)
  void** paramsIn = params;
  void** extraIn = extra;
  if (!instrumented && options_.tags) untagArguments(function, f, params, extra, scratch);
  if (m && m->instrumented && !instrumented && !m->namedUninstrumented) {
    // Device code of the program that cucatch-nvcc did not see as PTX: named once, so that a
    // clean run is not taken for a checked one.
    m->namedUninstrumented = true;
    std::set<std::string> modules;
    for (uint32_t unit : m->units)
      if (auto t = units_.find(unit); t != units_.end()) modules.insert(t->second.module);
    std::string files;
    for (const auto& name : modules) files += (files.empty() ? "" : ", ") + name;
    writeStderr(fmt::format("cucatch: note: kernel {} is linked with instrumented code ({}) but was not instrumented "
                            "(link-time-optimized device code, -dlto or an LTO-IR callback, or device code built "
                            "without cucatch-nvcc, such as a static library's): it runs unchecked, with untagged "
                            "arguments. Other such kernels of this module are not named.\n",
                            demangle(kernelName(f)), files.empty() ? "unnamed" : files));
  }
  if (options_.debug) {
    log(fmt::format("{}: {} ({}{}) in {} module{}{}", api, kernelName(f), function,
                    kernelHandles_.count(function) ? ", a CUkernel" : "",
                    !m ? "an unknown" : m->instrumented ? "an instrumented" : "an uninstrumented",
                    m && m->instrumented && !instrumented ? " (the kernel itself is not instrumented)" : "",
                    params != paramsIn || extra != extraIn ? ", arguments untagged" : ""));
  }
  // The driver may have raised the stack limit for a launch since (a kernel with a larger static
  // stack): the reserve follows.
  if (m && m->stackReserved) reserveStack();
  // The twin, where the runtime can give it its arguments: the kernel's own as an array, not
  // packed (`extra`), and not into a stream being captured (a graph replays the arguments it
  // was made with, and the bounds were the tables' at capture).
  // (No driver call while no capture is under way: one fewer per launch.)
  std::optional<CUstreamCaptureStatus> capturing;
  if (twin && instrumented && options_.launchMetadata && params && !extra && stream &&
      (capturing = captureStatus(*stream)) && *capturing == CU_STREAM_CAPTURE_STATUS_NONE) {
    const Twin& t = launchTwin(function, f, *m);
    if (t.function && launchTwinArguments(params, t.record->paramCount, t.record->launchParams,
                                          [&](uint64_t p) { return metadata_->launchView(p); }, scratch.bounds,
                                          scratch.params)) {
      params = scratch.params.data();
      *twin = t.function;
      if (options_.debug) log(fmt::format("launch twin {} in place of its kernel ({})", t.record->launchTwin, api));
    }
  }
  if (instrumented) {
    const std::string& name = kernelName(f);
    bool seen = false;
    for (const auto& [k, mod] : launched_) seen |= k == name && mod == m;
    if (!seen && launched_.size() < 64) launched_.emplace_back(name, m);
  }
}

Runtime::Twin& Runtime::launchTwin(void* handle, CUfunction f, const Module& m) {
  const InContext<void*> key{current_->contextId(), handle};
  auto it = twins_.find(key);
  if (it != twins_.end()) return it->second;
  Twin& t = twins_[key];
  const KernelRecord* k = kernelRecord(m, kernelName(f));
  if (!k || k->launchTwin.empty()) return t;
  CUstreamCaptureMode saved;
  relaxCapture(saved);  // (another thread may be capturing in global mode)
  CUmodule mod = nullptr;
  CUfunction g = nullptr;
  bool found = d_.cuFuncGetModule(&mod, f) == CUDA_SUCCESS &&
               d_.cuModuleGetFunction(&g, mod, k->launchTwin.c_str()) == CUDA_SUCCESS;  // (a device link may drop it)
  // Every attribute the program can set on the kernel (cuFuncSetAttribute): where one cannot be
  // given to the twin, the kernel runs.
  for (CUfunction_attribute a : {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                 CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                                 CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
                                 CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                 CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE}) {
    int value = 0, twinValue = 0;
    if (!found) break;
    if (d_.cuFuncGetAttribute(&value, a, f) != CUDA_SUCCESS) continue;  // (not on this device)
    found = d_.cuFuncGetAttribute(&twinValue, a, g) == CUDA_SUCCESS &&
            (value == twinValue || d_.cuFuncSetAttribute(g, a, value) == CUDA_SUCCESS);
  }
  restoreCapture(saved);
  if (!found) {
    log(fmt::format("no launch twin {} for this context: the kernel itself runs", k->launchTwin));
    return t;
  }
  t.function = g;
  t.record = k;
  return t;
}

void Runtime::forgetLaunchTwins() {
  std::lock_guard lock(mutex_);
  twins_.clear();
}

CUresult Runtime::twinRefused(void* function, CUresult result, const std::function<CUresult()>& launchKernel) {
  CUresult r = launchKernel();
  if (r != CUDA_SUCCESS) return r;
  std::lock_guard lock(mutex_);
  if (!ensureDevice()) return r;
  auto it = twins_.find({current_->contextId(), function});
  if (it == twins_.end() || !it->second.function) return r;
  if (options_.debug) {
    const char* error = "?";
    d_.cuGetErrorName(result, &error);
    log(fmt::format("the driver refused {} ({}) where it launched its kernel: the kernel runs from now on",
                    it->second.record->launchTwin, error));
  }
  it->second.function = nullptr;
  return r;
}

void Runtime::launchRefused(void* function, const unsigned threads[3], CUresult result, const char* api) {
  if (result != CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES && result != CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE &&
      result != CUDA_ERROR_INVALID_VALUE)
    return;
  std::lock_guard lock(mutex_);
  CUfunction f = nullptr;
  bool instrumented = false;
  Module* m = ensureDevice() ? moduleOf(function, f, instrumented) : nullptr;
  if (!m || !instrumented) return;
  const std::string& name = kernelName(f);
  int registers = 0, maxThreads = 0;
  d_.cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  d_.cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
  uint64_t block = uint64_t(threads[0]) * threads[1] * threads[2];
  const char* error = "?";
  d_.cuGetErrorName(result, &error);
  const KernelRecord* k = kernelRecord(*m, name);
  std::string original = k && k->registers ? fmt::format("; without cucatch it used {} registers", *k->registers)
                                           : std::string();
  // Only a refusal that instrumentation can have caused is cucatch's to explain.
  if (result == CUDA_ERROR_INVALID_VALUE && block <= static_cast<uint64_t>(maxThreads)) return;
  writeStderr(fmt::format("cucatch: error: {} of kernel {} with {}x{}x{} threads per block failed ({}): instrumented, it "
                       "uses {} registers per thread and accepts at most {} threads per block{}. This launch may "
                       "have worked without cucatch: please report it (docs/runtime.md)\n",
                       api, demangle(name), threads[0], threads[1], threads[2], error, registers, maxThreads,
                       original));
}

// ------------------------------------------------------------------------------ reports

CUresult Runtime::after(CUresult result) {
  if (isLaunchFailure(result)) {
    std::lock_guard lock(mutex_);
    drain(true);
  }
  return result;
}

void Runtime::synchronized(bool wholeContext) {
  std::lock_guard lock(mutex_);
  // (Pending changes are kept in the one context the runtime has tables in: defersOrdered.)
  if (wholeContext && contexts_.size() == 1 && currentContextId() == contexts_.begin()->first) pending_.forgetSeen();
  drain(false);
  launched_.clear();  // what ran before this point has finished (on this stream at least)
}

void Runtime::drain(bool launchFailed, const std::function<bool(const DeviceTables&)>& only) {
  std::vector<std::pair<abi::ErrorRecord, const DeviceTables*>> records;  // (with the context's tables)
  uint32_t overflow = 0;
  for (auto& [id, tables] : contexts_) {
    if (!tables || (only && !only(*tables))) continue;
    uint32_t more = 0;
    auto taken = tables->takeRecords(more);
    if (!taken.empty()) overflow += more;
    for (const auto& r : taken) records.emplace_back(r, tables.get());
  }
  if (records.empty()) {
    if (launchFailed && !hintedAtFailure_) {
      // Not a violation cucatch can report. In a program that runs correctly without cucatch,
      // with tags on the likeliest cause is an uninstrumented kernel that dereferenced a tagged
      // pointer it read from memory (launch arguments are untagged; memory is not); in one that
      // recurses, a stack overflow: instrumented functions take more stack per call (the
      // checks' registers, the frame table's address kept across calls).
      hintedAtFailure_ = true;
      std::string text = "cucatch: warning: a kernel failed and cucatch recorded no violation. If the program runs "
                         "correctly without cucatch, ";
      if (options_.tags)
        text += "a kernel cucatch did not instrument (a precompiled library) may have read a tagged pointer from "
                "device memory, such as the pointer array of a batched cuBLAS call: run it with CUCATCH_TAGS=0 "
                "(docs/runtime.md); or ";
      text += "a kernel that recurses may have run out of stack, which its functions use more of instrumented: "
              "raise cudaLimitStackSize\n";
      writeStderr(text);
    }
    if (launchFailed) log("a launch failed with no violation recorded: not cucatch's to report");
    return;
  }
  std::vector<Violation> found;
  for (const auto& [r, tables] : records) {
    auto unit = units_.find(r.unit);
    const SiteTable* table = unit != units_.end() ? &unit->second : nullptr;
    const Site* site = table && r.site < table->sites.size() ? &table->sites[r.site] : nullptr;
    uint8_t entryTag = static_cast<uint8_t>(r.meta >> abi::kMetaTagShift);
    // Shared and const accesses are checked against a variable, in a window of their own
    // whose addresses are not the allocations' addresses.
    uint8_t pointerTag = static_cast<uint8_t>(r.meta >> abi::kMetaPointerTagShift);
    // A device-heap block's entry is the device's own; the host knows it from the record and
    // the context's heap log.
    bool heap = isDeviceHeapTag(pointerTag) && entryTag == pointerTag && !(site && site->inWindow());
    // A variable's bounds (a __shared__ array, a local frame): entryTag names it in the unit.
    bool variable = metaState(r) == abi::kMetaStateVariable;
    // The local memory live in a kernel (a local address of unknown origin): entryTag names its frame.
    bool frames = checkedAgainstLiveFrames(r);
    // A frame a device function's frame table placed the address in: entryTag names it.
    bool tableFrame = checkedAgainstFrameTable(r);
    const Allocation* a = (site && site->inWindow()) || checkedAgainstSharedWindow(r) || heap || variable || frames ||
                                  tableFrame
                              ? nullptr
                              : metadata_->findChecked(r.base, r.size, entryTag);
    found.push_back(fromRecord(r, site, table ? table->module : fmt::format("unit {:08x}", r.unit), a));
    const Site* object = variable || frames || tableFrame ? namedObject(r) : nullptr;
    if (variable && site && site->object.empty()) found.back().passedObject = object;
    if (frames) found.back().liveFrame = object;
    if (tableFrame && r.base != abi::kNoLiveLocal) found.back().tableFrame = object;
    if (heap) found.back().heapBlock = heapBlockOf(r, *tables);
    if (!site || !site->entry) {
      Violation& v = found.back();
      for (const auto& [kernel, m] : launched_)
        if (m->units.count(r.unit)) v.kernels.push_back(kernel);
    }
  }
  launched_.clear();
  unloadedModules_.clear();  // (no launch names them now)
  if (overflow)
    writeStderr(fmt::format("cucatch: {} more violations were not recorded (the error buffer holds {}; raise "
                            "CUCATCH_MAX_ERRORS)\n",
                            overflow, options_.maxErrors));
  report(std::move(found));
}

const Site* Runtime::namedObject(const abi::ErrorRecord& r) const {
  const uint8_t tag = static_cast<uint8_t>(r.meta >> abi::kMetaTagShift);
  // The metadata word holds the object's index in its unit's table, not the unit (a caller in
  // another unit of the module may have passed the bounds: relocatable code): the object of that
  // index in the module's units whose size is the bounds', named where they are all one
  // variable; only where none is, a dynamic region of that index (its size is the launch's).
  std::vector<uint32_t> units{r.unit};
  auto siblings = [&](const Module& m) {
    if (m.units.count(r.unit))
      for (uint32_t unit : m.units)
        if (std::find(units.begin(), units.end(), unit) == units.end()) units.push_back(unit);
  };
  for (const auto& [handle, m] : modules_) siblings(*m);
  for (const auto& m : unloadedModules_) siblings(*m);
  for (bool dynamic : {false, true}) {
    const Site* found = nullptr;
    for (uint32_t unit : units) {
      auto table = units_.find(unit);
      if (tag == 0 || table == units_.end() || tag > table->second.objects.size()) continue;
      const Site& o = table->second.objects[tag - 1];
      if (dynamic ? !o.objectDynamic : o.objectDynamic || o.objectBytes != r.size) continue;
      if (found && (found->object != o.object || found->function != o.function ||
                    found->objectFrameOffset != o.objectFrameOffset))
        return nullptr;
      found = &o;
    }
    if (found) return found;
  }
  return nullptr;
}

DeviceHeapBlock Runtime::heapBlockOf(const abi::ErrorRecord& r, const DeviceTables& tables) const {
  DeviceHeapBlock b;
  b.base = r.base;
  b.size = r.size;
  uint8_t tag = static_cast<uint8_t>(r.meta >> abi::kMetaPointerTagShift);
  uint32_t state = metaState(r);
  b.live = state == abi::kBstLive;
  b.freedBefore = state == abi::kBstFreed;
  auto call = [&](bool freed) -> std::optional<DeviceHeapCall> {
    abi::HeapEvent e = tables.heapEvent(tag, freed);
    if (e.unit == 0) return std::nullopt;
    // The tag's pair is the latest block's: where the tag went to another block between the
    // violation and this report (kernels that went on allocating before the records were read),
    // or a free was logged after the next claim of its entry, the event is not of this block,
    // and naming its thread and line would mislead. (A block of the same size at the same
    // address cannot be told from it.)
    if (e.base != b.base || e.size != b.size) {
      (freed ? b.freedUnknown : b.allocatedUnknown) = true;
      return std::nullopt;
    }
    DeviceHeapCall c;
    auto unit = units_.find(e.unit);
    if (unit != units_.end()) {
      c.module = unit->second.module;
      if (e.site < unit->second.sites.size()) c.site = &unit->second.sites[e.site];
    }
    c.block = {e.block[0], e.block[1], e.block[2]};
    c.thread = {e.thread[0], e.thread[1], e.thread[2]};
    return c;
  };
  b.allocated = call(false);
  // A free event of a block that was not freed is another block's (one written late).
  if (b.freedBefore) {
    b.freed = call(true);
    // A claim of the tag by another block clears its free event: where the malloc event is
    // another block's, an empty free slot is that claim's doing, not a free never logged.
    if (!b.freed && !b.freedUnknown && b.allocatedUnknown) b.freedUnknown = true;
  }
  return b;
}

void Runtime::report(std::vector<Violation> violations) {
  if (violations.empty()) return;
  bool fatal = !options_.continueMode();
  auto sym = [this](uintptr_t f) { return symbolize(f); };
  for (const auto& v : fold(std::move(violations))) {
    writeStderr(formatText(v, *metadata_, sym));
    jsonReports_.push_back(toJson(v, sym));
    ++errorsReported_;
  }
  if (std::string path = options_.jsonReportPath(); !path.empty()) {
    nlohmann::json doc{{"errors", nlohmann::json::array()}, {"leaks", nlohmann::json::array()}};
    for (const auto& j : jsonReports_) doc[j["kind"] == "leak" ? "leaks" : "errors"].push_back(j);
    std::ofstream out(path);
    out << doc.dump(1) << "\n";
    if (!out) writeStderr(fmt::format("cucatch: warning: cannot write the JSON report to {}\n", path));
  }
  if (fatal && !exiting_) terminate();
}

void Runtime::terminate() {
  writeStderr(fmt::format("cucatch: {} error{} reported; exiting with status {}\n", errorsReported_,
                       errorsReported_ == 1 ? "" : "s", options_.errorExitCode));
  fflush(stdout);
  fflush(stderr);
  _exit(static_cast<int>(options_.errorExitCode));
}

void Runtime::atExit() {
  std::lock_guard lock(mutex_);
  exiting_ = true;
  if (!contexts_.empty()) {
    // Kernels still running in the current context may yet record violations; their failure
    // is reported below. (Only the current one: another context may have been torn down by
    // the CUDA runtime's own exit handlers, and its handle must not be used.)
    CUcontext ctx = nullptr;
    unsigned long long id = 0;
    if (d_.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx && d_.cuCtxGetId(ctx, &id) == CUDA_SUCCESS &&
        contexts_.count(id))
      d_.cuCtxSynchronize(ctx);
    drain(false);
  }
  if (options_.leakCheck && metadata_) {
    std::vector<Violation> leaks;
    for (const Allocation* a : metadata_->live()) {
      Violation v;
      v.kind = ViolationKind::Leak;
      v.address = a->base;
      v.allocation = a;
      leaks.push_back(std::move(v));
    }
    report(std::move(leaks));
  }
  if (errorsReported_ > 0) terminate();
}

}  // namespace cucatch::runtime
