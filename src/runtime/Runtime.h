// The cucatch runtime inside a process: owns the metadata (host mirror and device tables), the
// registry of loaded modules, the error buffer, and reporting. The interposer (Interposer.cpp)
// calls it from the driver entry points it wraps; nothing else does.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/DeviceTables.h"
#include "runtime/Driver.h"
#include "runtime/ElfSymbols.h"
#include "runtime/JitLoader.h"
#include "runtime/LaunchMetadata.h"
#include "runtime/Metadata.h"
#include "runtime/Options.h"
#include "runtime/PendingUpdates.h"
#include "runtime/Report.h"
#include "runtime/StackLimit.h"
#include "runtime/Unwinder.h"

namespace cucatch::runtime {

// Whether `address` (a frame's return address, a caller's) is in libcucatch: its frames are not
// the program's, and its own lookups are not the program's.
bool isCucatch(const void* address);

// Scratch storage for a launch whose parameters had to be rewritten (untagged copies).
struct LaunchArguments {
  std::vector<std::vector<unsigned char>> values;
  std::vector<void*> params;
  std::vector<unsigned char> buffer;
  size_t bufferSize = 0;
  std::vector<void*> extra;
  std::vector<LaunchBounds> bounds;  // a launch twin's (LaunchMetadata.h)
};

class Runtime {
 public:
  static Runtime& get();
  const Options& options() const { return options_; }
  bool debug() const { return options_.debug; }

  // Binds the driver: `getProcAddress` is the real cuGetProcAddress_v2.
  void bindDriver(decltype(&::cuGetProcAddress_v2) getProcAddress);

  // ---- allocations: called after the real allocation succeeded ---------------------------
  // Returns the pointer to hand to the program (tagged unless tags are off or the kind is
  // host-visible). `stream` is set for stream-ordered allocations, whose metadata update is
  // enqueued on that stream instead of being made at once.
  CUdeviceptr allocated(CUdeviceptr base, size_t size, MemoryKind kind, CUstream stream = nullptr,
                        bool streamOrdered = false);
  // A free: decides whether it is a double or an invalid free (reported; the real free is then
  // not called and CUDA_ERROR_INVALID_VALUE returned), else calls `realFree` with the untagged
  // pointer and, if it succeeded, marks the memory freed on the device. That happens after the
  // real free, which waits for the kernels still using the memory; for a stream-ordered free
  // the update is enqueued on its stream.
  CUresult free(CUdeviceptr pointer, const std::function<CUresult(CUdeviceptr)>& realFree, CUstream stream = nullptr,
                bool streamOrdered = false);

  // Addresses of memory cucatch does not track (reserved by cuMemAddressReserve; mapped from
  // another process, another API or for a graph's own allocation), and their release
  // (Metadata::onUntrackedReserve; `endsAtFree`: a cuMemFree releases it). untrackedMapped asks
  // the driver for the range that holds `pointer`. A free of an untagged pointer into such a
  // range is the driver's to judge (Runtime::free).
  void untrackedReserved(CUdeviceptr base, size_t size, bool endsAtFree = false);
  void untrackedMapped(CUdeviceptr pointer, bool endsAtFree);
  void untrackedReleased(CUdeviceptr pointer);
  // A stream of the current context is destroyed (before the real call).
  void streamDestroying(CUstream stream);

  // ---- launches --------------------------------------------------------------------------
  // Registers the module of `function` on first sight (fills its __cucatch_state), and for
  // kernels of uninstrumented modules rewrites tagged pointer arguments into `scratch`; the
  // caller launches with the returned params/extra.
  // `stream` is the launch's (none for a graph kernel node): the launch is ordered after the
  // table updates so far (see flushUpdates).
  // `twin`, where the caller can launch one (not for a graph node): set to the kernel's launch
  // twin (instrument/LaunchMetadata.h) with `params` rewritten to its arguments, where the
  // kernel has one and this launch can take it; left null otherwise.
  void launching(void* function, std::optional<CUstream> stream, void**& params, void**& extra,
                 LaunchArguments& scratch, const char* api, CUfunction* twin = nullptr);
  // The driver refused a launch of `function`'s twin with `result`: `launchKernel` launches the
  // kernel itself, as the program asked, and its result is the program's. Where the kernel
  // launched, the twin is not used for it again (an attribute the program set on the kernel,
  // which the twin lacks).
  CUresult twinRefused(void* function, CUresult result, const std::function<CUresult()>& launchKernel);
  // Launch twins are looked up again at their next launch: after the program set an attribute of
  // a kernel (cuFuncSetAttribute, cuKernelSetAttribute), which the twin then takes too.
  void forgetLaunchTwins();
  // The program unloaded a module, or a library (whose modules, one per context, go with it).
  // The driver hands their handles out again, to the next module loaded and its functions
  // (seen on an H200: 18 of 48 handles in bug_module_reload), so what the runtime learned of
  // each (which module a launch handle is in, whether its kernel is instrumented, its name, its
  // parameters' layout, its twin, the module's registration) goes with them.
  void moduleUnloaded(CUmodule module);
  void libraryUnloaded(CUlibrary library);
  // A graph launch in `stream`: its kernels run after the table updates so far.
  void graphLaunching(CUstream stream);
  // Before a wrapped driver call that could order work after the stream-ordered table changes
  // still pending (every wrapped call but stream-ordered allocations and frees, launches, which
  // do this in `launching`, and pure queries): enqueues them into their streams. One atomic load
  // where nothing is pending.
  void beforeDriverCall() {
    if (orderedPending_.load(std::memory_order_acquire)) enqueuePending();
  }
  // A stream capture began, or one ended: while none can be under way, no stream needs to be
  // asked whether it is being captured (defersOrdered).
  void captureBegan() { captures_.fetch_add(1, std::memory_order_acq_rel); }
  void captureEnded() {
    int n = captures_.load(std::memory_order_acquire);
    while (n > 0 && !captures_.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel)) {
    }
  }
  // Blocks the host until every table update so far reached every context's tables (for
  // launches whose streams are not followed one by one).
  void finishUpdates();
  // A launch of `function` with `threads` per block that the driver refused: if the kernel is
  // one cucatch instrumented and the refusal is about resources, says so (registers with and
  // without instrumentation), since the original may have launched.
  void launchRefused(void* function, const unsigned threads[3], CUresult result, const char* api);
  // A CUkernel of `library` (cuLibraryGetKernel): libraryUnloaded forgets it.
  void noteKernelHandle(void* kernel, CUlibrary library);

  // ---- contexts ----------------------------------------------------------------------------
  // Before the program destroys `ctx` (under the runtime's lock, so that no other thread uses
  // the handle while it goes), and after it released or reset the primary context of `device`
  // (ended only if it is no longer active; its handle stays valid): what its kernels recorded is
  // reported and its tables are dropped, so that a context made later, even at the same
  // handle, gets its own.
  void contextEnding(CUcontext ctx);
  void primaryContextEnded(CUdevice device);

  // ---- the stack limit (instrument/StackReserve.h) -------------------------------------------
  // The program sets the current context's stack limit (cuCtxSetLimit): what it asked is kept,
  // and `realSet` is given that raised to what the kernels of the modules registered there need
  // to run a recursion as deep as the original's would run in it.
  CUresult setStackLimit(size_t bytes, const std::function<CUresult(size_t)>& realSet);
  // The current context's stack limit as the program sees it (cuCtxGetLimit): what it asked, or
  // what the driver had before cucatch raised it; none where cucatch did not raise it.
  std::optional<size_t> programStackLimit();

  // ---- results -----------------------------------------------------------------------------
  // After any wrapped call: a launch failure makes the runtime look for violation records.
  CUresult after(CUresult result);
  // At synchronization points: report what instrumented kernels recorded (continue mode).
  // `wholeContext`: every kernel launched so far has finished (cuCtxSynchronize).
  void synchronized(bool wholeContext = false);
  void atExit();

  static CUdeviceptr strip(CUdeviceptr p) { return untag(p); }
  static void* stripHost(void* p) { return reinterpret_cast<void*>(untag(reinterpret_cast<uint64_t>(p))); }
  // An untagged copy, made in `stream`, of a device array of `count` device pointers that a
  // precompiled library's kernels will read (a batched cuBLAS call's matrices); 0 where none is
  // needed (tags off, no array) or none could be made. releasePointerArray frees it in the same
  // stream, after the library's work.
  CUdeviceptr untaggedPointerArray(const void* array, int64_t count, CUstream stream);
  void releasePointerArray(CUdeviceptr copy, CUstream stream);
  // The tag of `p` on `q` (for entry points that return an address derived from an argument).
  static CUdeviceptr retag(CUdeviceptr q, CUdeviceptr like) { return tagOf(like) ? withTag(q, tagOf(like)) : q; }

  // What to hand the driver instead of an image the program loads (JitLoader.h): the
  // instrumented PTX, or nullptr to load the image as it is.
  const void* imageToLoad(const void* image, const void* caller);
  const void* fileImageToLoad(const char* path);
  // The same for an input of a link at run time (cuLinkAddData, nvJitLink): PTX, or in JIT mode
  // a fatbinary; nullptr to link the input as it is. And for one in a file (cuLinkAddFile).
  const char* linkInputToLoad(const void* data, size_t size, bool ptx, const char* name);
  const char* linkFileToLoad(const char* path, bool ptx);
  const Driver& driver() const { return d_; }

  void log(const std::string& line);
  // The pointer the program holds for an address the driver hands back (the allocation's tag).
  CUdeviceptr programPointer(CUdeviceptr raw);

 private:
  Runtime();
  struct Module {
    bool instrumented = false;           // has instrumented units of this ABI version
    std::unordered_set<uint32_t> units;  // compilation units linked into it
    // The kernels those units instrumented; only these get tagged arguments (a module can
    // also hold kernels of uninstrumented code linked in, such as a static library's).
    std::unordered_set<std::string> kernels;
    // One of its uninstrumented kernels was named (once per module: a static library linked
    // into instrumented code has many).
    bool namedUninstrumented = false;
    // Some kernel of it needs more stack under recursion (instrument/StackReserve.h).
    bool stackReserved = false;
  };
  // The tables of the current context, made on its first allocation or launch (current_);
  // false when there is no current context or its tables could not be made.
  bool ensureDevice();
  // Turns tags off (with a note) where a library whose API is wrapped is linked statically into
  // the program, so that its calls are not intercepted (Libraries.h), unless CUCATCH_TAGS was
  // set (`asked`: its value, or null); from the constructor.
  void keepTagsOffStaticLibraries(const char* asked);
  void dropTables(const std::function<bool(const DeviceTables&)>& ended);
  // Whether the allocation being made was asked for by a precompiled library (a shared
  // object other than the program that does not link libcucatch): such memory stays
  // untagged, since the library's kernels may read the pointer back from device memory.
  bool allocatedByLibrary(const std::vector<void*>& stack);
  // The host call stack at this runtime entry, unwound once: deep enough for the report's
  // backtrace, and at least `atLeast` frames (none when neither asks for any).
  std::vector<void*> callStack(size_t atLeast) const;
  // The program's frames of `stack` (libcucatch's own dropped), at most the backtrace depth.
  Backtrace backtrace(const std::vector<void*>& stack) const;
  // Table updates. Host changes reach the device as a list of writes taken from the metadata.
  // Ordinary allocations and frees are flushed at the next launch, on cucatch's stream of
  // every context, and the launch waits for them there (orderAfterUpdates): the host never
  // waits. A stream-ordered change first orders its stream after what is pending, then goes
  // into that stream (publishInStream), so kernels ahead of a cuMemFreeAsync still see the
  // memory live; other contexts take a stream-ordered free at that point of the stream (an
  // event) and an allocation before their next launch.
  void flushUpdates();
  void orderAfterUpdates(CUstream stream);  // flushUpdates, then `stream` waits for this context's updates
  void publishInStream(CUstream stream, bool freeing);
  // Stream-ordered changes are pending (PendingUpdates.h) instead of enqueued at once where
  // CUCATCH_DEFER_ORDERED is on, the stream is one the program made (or the legacy stream by its
  // handle: not 0, whose meaning depends on the entry point), the program has one context with
  // tables, and the stream is not being captured (a graph replays what a capture enqueues).
  bool defersOrdered(CUstream stream);
  // Moves the metadata's changes so far, made by ordinary allocations and frees, aside for the
  // next flushUpdates: a stream-ordered change taken next is its call's alone.
  void holdOrdinaryChanges();
  // Enqueues the pending stream-ordered changes, each stream's into that stream, after
  // flushUpdates and that stream's wait for it. (No other stream is made to wait for them: a
  // stream may be waiting, ahead of them, for work the program enqueues later elsewhere. Every
  // call that could order work after them enqueues them first.)
  void flushPending();
  void enqueuePending();  // beforeDriverCall, under the lock
  // After pending_ changed (a change added or cancelled): sets what beforeDriverCall reads, and
  // enqueues everything where too much is kept.
  void pendingChanged();
  Module* moduleOf(void* function, CUfunction& resolved, bool& instrumented);
  const KernelRecord* kernelRecord(const Module& m, const std::string& name) const;
  void registerModule(CUmodule module, Module& m);
  std::optional<uint64_t> currentContextId() const;
  // The current context's limit raised to what its registered modules' kernels that recurse need
  // (`ratioPerMille`, `extraBytes`: one more module's, or none), for what the program asked; from
  // a module's registration and before each launch of such a kernel.
  void reserveStack(uint32_t ratioPerMille = 1000, uint64_t extraBytes = 0);
  const std::string& kernelName(CUfunction f);  // cached cuFuncGetName
  void untagArguments(void* handle, CUfunction f, void**& params, void**& extra, LaunchArguments& scratch);
  // The launch twin of the kernel `f` of `m` (launched through `handle`), resolved once per
  // context, with the kernel's attributes copied to it; null where it has none.
  struct Twin {
    CUfunction function = nullptr;
    const KernelRecord* record = nullptr;
  };
  Twin& launchTwin(void* handle, CUfunction f, const Module& m);
  bool untagWord(unsigned char* p);
  // Reports what the error buffers hold (of the contexts `only` accepts, when given: a context
  // whose kernels may still be running can be in the middle of writing a record).
  void drain(bool launchFailed, const std::function<bool(const DeviceTables&)>& only = {});
  // The device-heap block a record's pointer tag names, with its malloc and free from the log
  // of the context that wrote the record.
  DeviceHeapBlock heapBlockOf(const abi::ErrorRecord& r, const DeviceTables& tables) const;
  // The variable a record's metadata word names (abi::kMetaStateVariable, kMetaStateLiveFrames):
  // an object of the site's unit, or, where a caller in another unit of the same module passed
  // the bounds (relocatable code), of that unit; null where none match the bounds, or several
  // variables of the module's units do (a dynamic region only where no variable of that size does).
  const Site* namedObject(const abi::ErrorRecord& r) const;
  void report(std::vector<Violation> violations);
  void terminate();
  std::string symbolize(uintptr_t frame);
  CUresult ours(CUresult r, const char* what) { return d_.check(r, what); }
  void relaxCapture(CUstreamCaptureMode& saved);
  void restoreCapture(CUstreamCaptureMode saved);

  // The compute capability (90 for 9.0) of the current context's device, else device 0's; 0
  // where the driver cannot say.
  unsigned deviceArchitecture();
  unsigned architectureOf(CUdevice device);  // 90 for 9.0; 0 where the driver does not say
  JitLoader& jitLoader();  // made at the first load
  // JitLoader's Linker: relocatable units linked by the driver in place of `original`
  // (runtime/DriverLink.h), where every device has the architecture the link is for.
  std::string linkRelocatable(const std::vector<jit::LinkInput>& inputs, const void* original, std::string& why);
  // `replaced`, after the debug log says what was loaded in place of `what` `name`.
  const char* loaded(const char* what, const char* name, const char* replaced);

  Options options_;
  std::optional<Unwinder> unwinder_;  // takes callStack's frames (made once the options are read)
  Driver d_;
  std::optional<JitLoader> jit_;
  std::recursive_mutex mutex_;
  std::unordered_map<uint64_t, StackLimit> stackLimits_;  // by context id (StackLimit.h)
  std::optional<Metadata> metadata_;  // made with the device tables, when CUCATCH_TAGS is decided
  PendingUpdates pending_;             // stream-ordered changes not yet enqueued
  std::atomic<bool> orderedPending_{false};  // !pending_.empty(), read without the lock
  std::atomic<int> captures_{0};             // stream captures begun and not seen ended
  // Changes flushUpdates writes first: ordinary ones moved aside (holdOrdinaryChanges), and the
  // entries of allocations freed while pending (PendingUpdates::cancel).
  std::vector<uint32_t> heldEntries_;
  std::vector<ShadowMap::Write> heldWrites_;
  // Stream-ordered allocations whose changes were kept pending, by base: the stream each was
  // made on, and whether it was freed there with its changes kept pending too. The next
  // allocation there on that stream is in that free's order (Metadata::onAllocate's
  // `inFreedOrder`). Forgotten at an allocation or free there otherwise, at the stream's
  // destruction and at a context's end.
  struct OrderedLife {
    uint64_t context = 0;
    CUstream stream = nullptr;
    bool freedThere = false;
  };
  std::unordered_map<uint64_t, OrderedLife> orderedLives_;
  // `stream`'s capture status: none without asking where every capture begun was seen to end;
  // nullopt where the driver cannot say.
  std::optional<CUstreamCaptureStatus> captureStatus(CUstream stream);
  // Whether a stream-ordered change in `stream` is captured into a graph (`deferred`: kept
  // pending by defersOrdered, so not).
  bool capturedInto(CUstream stream, bool deferred);

  // By context ID (cuCtxGetId: never reused, where a destroyed context's handle may be). A
  // null entry is a context whose tables could not be made: it runs unchecked.
  std::unordered_map<uint64_t, std::unique_ptr<DeviceTables>> contexts_;
  DeviceTables* current_ = nullptr;  // set by ensureDevice
  bool warnedTablesFailed_ = false;
  bool deviceFailed_ = false;  // the driver lacks what the runtime needs

  struct Resolved {
    Module* module;
    CUfunction function;
    bool instrumented;  // the kernel is one of module->kernels
  };
  // Handles of one context: a CUkernel resolves to a function and module per context, and a
  // destroyed context's handles may come back as another's.
  template <typename Handle>
  using InContext = std::pair<uint64_t, Handle>;
  struct InContextHash {
    template <typename Handle>
    size_t operator()(const InContext<Handle>& k) const {
      return std::hash<uint64_t>()(k.first) * 31 + std::hash<Handle>()(k.second);
    }
  };
  std::unordered_map<InContext<void*>, Resolved, InContextHash> functionModule_;  // launch handle (CUfunction or CUkernel)
  std::unordered_map<InContext<CUmodule>, std::unique_ptr<Module>, InContextHash> modules_;
  // Modules unloaded (moduleUnloaded), kept while launched_ may still name them in a report.
  std::vector<std::unique_ptr<Module>> unloadedModules_;
  // Forgets the modules `unloaded` names (by handle, in every context) and every launch handle
  // resolved to one of them, or to no module.
  void forgetModules(const std::function<bool(CUmodule)>& unloaded);
  std::unordered_map<uint32_t, SiteTable> units_;  // by unit id, from every module loaded
  // Kernels launched since the last report point, and their modules: who was running when a
  // device function recorded a violation.
  std::vector<std::pair<std::string, const Module*>> launched_;
  std::unordered_map<InContext<CUfunction>, std::string, InContextHash> functionNames_;
  std::unordered_map<void*, CUlibrary> kernelHandles_;  // CUkernels handed out by cuLibraryGetKernel, with their library
  std::unordered_map<InContext<void*>, std::vector<std::pair<size_t, size_t>>, InContextHash> paramLayout_;  // by launch handle
  std::unordered_map<InContext<void*>, Twin, InContextHash> twins_;  // by launch handle

  std::mutex objectsMutex_;
  // Who a loaded object is, for allocatedByLibrary: by its start address and link map.
  enum class ObjectOrigin { Program, Library, Cuda };
  struct PairHash {
    size_t operator()(const std::pair<uintptr_t, const void*>& k) const {
      return std::hash<uintptr_t>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<std::pair<uintptr_t, const void*>, ObjectOrigin, PairHash> objectOrigin_;
  // By file, read at the first report that needs it (the program's when the runtime loads, where
  // tags are on: keepTagsOffStaticLibraries reads it).
  std::unordered_map<std::string, ElfSymbols> elfSymbols_;
  std::vector<nlohmann::json> jsonReports_;
  size_t errorsReported_ = 0;
  bool hintedAtFailure_ = false;  // the CUCATCH_TAGS=0 / stack hint after an unexplained launch failure
  bool exiting_ = false;
};

}  // namespace cucatch::runtime
