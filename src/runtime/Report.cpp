#include "runtime/Report.h"

#include <cxxabi.h>
#include <cstdio>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace cucatch::runtime {

SiteTable SiteTable::parse(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error("site table is not valid JSON");
  if (j.value("abi", 0u) != abi::kAbiVersion)
    throw std::runtime_error(fmt::format("site table of ABI version {} (this runtime: {})", j.value("abi", 0u),
                                         abi::kAbiVersion));
  SiteTable t;
  t.module = j.value("module", std::string());
  std::map<std::string, std::string> files;
  if (j.contains("files") && j["files"].is_object())
    for (auto& [k, v] : j["files"].items()) files[k] = v.get<std::string>();
  if (j.contains("kernels") && j["kernels"].is_object())
    for (auto& [name, k] : j["kernels"].items()) {
      KernelRecord r;
      if (k.contains("registers")) r.registers = k["registers"].get<unsigned>();
      if (k.contains("register_limit")) r.registerLimit = k["register_limit"].get<unsigned>();
      r.boundedBy = k.value("bounded_by", std::string());
      if (k.contains("stack")) {
        r.stackRatioPerMille = k["stack"].value("ratio_per_mille", 1000u);
        r.stackExtraBytes = k["stack"].value("extra_bytes", uint64_t(0));
      }
      if (k.contains("launch")) {
        const auto& l = k["launch"];
        r.launchTwin = l.at("kernel").get<std::string>();
        r.launchParams = l.at("params").get<std::vector<uint32_t>>();
        r.paramCount = l.at("param_count").get<uint32_t>();
      }
      t.kernels[name] = r;
    }
  if (j.contains("call_graph") && j["call_graph"].is_object())
    for (auto& [name, n] : j["call_graph"].items()) {
      callgraph::Function& f = t.callGraph[name];
      f.kernel = n.value("kernel", false);
      f.callsIndirectly = n.value("indirect", false);
      f.forwarder = n.value("forwarder", false);
      f.frame = n.value("frame", uint64_t(0));
      f.original = n.value("original", uint64_t(0));
      if (n.contains("calls")) f.callees = n["calls"].get<std::set<std::string>>();
      if (n.value("local", false)) t.localFunctions.insert(name);
    }
  auto readObject = [](const nlohmann::json& o, Site& site) {
    site.object = o.value("name", std::string());
    site.objectBytes = o.value("bytes", uint64_t(0));
    site.objectSpace = o.value("space", std::string("global"));
    site.objectDynamic = o.value("dynamic", false);
    site.objectPart = o.value("part", false);
    if (o.contains("frame_offset")) {
      site.objectFrameArray = true;
      site.objectFrameOffset = o["frame_offset"].get<uint64_t>();
      site.objectFrameBytes = o.value("frame_bytes", uint64_t(0));
    }
  };
  if (j.contains("objects"))
    for (const auto& o : j["objects"]) {
      Site object;
      object.function = o.value("function", std::string());
      object.entry = o.value("entry", false);
      if (o.contains("object")) readObject(o["object"], object);
      t.objects.push_back(std::move(object));
    }
  for (const auto& s : j.at("sites")) {
    Site site;
    site.function = s.value("function", std::string());
    site.ptxLine = s.value("ptx_line", 0u);
    site.line = s.value("line", 0u);
    site.column = s.value("column", 0u);
    site.instruction = s.value("instruction", std::string());
    site.entry = s.value("entry", false);
    uint32_t file = s.value("file", 0u);
    if (file != 0 && files.count(std::to_string(file))) site.file = files[std::to_string(file)];
    if (s.contains("inlined_at")) {
      const auto& at = s["inlined_at"];
      uint32_t f = at.value("file", 0u);
      if (f != 0 && files.count(std::to_string(f))) site.inlinedFile = files[std::to_string(f)];
      site.inlinedLine = at.value("line", 0u);
      site.inlinedColumn = at.value("column", 0u);
    }
    site.space = s.value("space", std::string());
    if (s.contains("object")) readObject(s["object"], site);
    site.objectOfOwnFrame = s.value("own_frame_object", false);
    uint32_t id = s.value("id", static_cast<uint32_t>(t.sites.size()));
    if (id >= t.sites.size()) t.sites.resize(id + 1);
    t.sites[id] = std::move(site);
  }
  return t;
}

callgraph::Functions moduleCallGraph(const std::map<uint32_t, const SiteTable*>& units) {
  callgraph::Functions out;
  for (const auto& [unit, table] : units) {
    auto key = [&](const std::string& name) {
      return table->localFunctions.count(name) ? fmt::format("{}@{:08x}", name, unit) : name;
    };
    for (const auto& [name, f] : table->callGraph) {
      auto [it, added] = out.try_emplace(key(name));
      callgraph::Function& g = it->second;
      // (A .weak function's definitions: the largest frame, the smallest original one a unit
      // measured, and a forwarder only where every one is: another unit's .weak G__cc_meta
      // stands for G's unit's.)
      g.kernel = g.kernel || f.kernel;
      g.callsIndirectly = g.callsIndirectly || f.callsIndirectly;
      g.forwarder = added ? f.forwarder : g.forwarder && f.forwarder;
      g.frame = added ? f.frame : std::max(g.frame, f.frame);
      g.original = added || !g.original ? f.original : f.original ? std::min(g.original, f.original) : g.original;
      for (const auto& c : f.callees) g.callees.insert(key(c));
    }
  }
  return out;
}

std::string_view violationKindName(ViolationKind k) {
  switch (k) {
    case ViolationKind::OutOfBounds: return "out-of-bounds";
    case ViolationKind::UseAfterFree: return "use-after-free";
    case ViolationKind::UseAfterScope: return "use-after-scope";
    case ViolationKind::NullPointer: return "null-pointer-dereference";
    case ViolationKind::DoubleFree: return "double-free";
    case ViolationKind::InvalidFree: return "invalid-free";
    case ViolationKind::Leak: return "leak";
  }
  return "?";
}

bool checkedAgainstSharedWindow(const abi::ErrorRecord& r) {
  return metaState(r) == abi::kMetaStateSharedWindow;
}

bool checkedAgainstLiveFrames(const abi::ErrorRecord& r) {
  return metaState(r) == abi::kMetaStateLiveFrames;
}

bool checkedAgainstFrameTable(const abi::ErrorRecord& r) {
  return metaState(r) == abi::kMetaStateFrameTable || metaState(r) == abi::kMetaStateFrameOverwritten ||
         metaState(r) == abi::kMetaStateFrameReused;
}

Violation fromRecord(const abi::ErrorRecord& r, const Site* site, std::string module, const Allocation* allocation) {
  Violation v;
  v.sharedWindow = checkedAgainstSharedWindow(r);
  v.liveFrames = checkedAgainstLiveFrames(r);
  uint32_t verdict = r.meta & abi::kMetaVerdictMask;
  v.kind = verdict == 0 ? ViolationKind::OutOfBounds : ViolationKind::UseAfterFree;
  // Outside the local memory live in the kernel: in a frame that has returned.
  if (v.liveFrames) v.kind = ViolationKind::UseAfterScope;
  // In no frame live on the thread's stack (the frame table's bad verdict).
  v.frameTable = checkedAgainstFrameTable(r);
  v.reusedFrameLive = metaState(r) == abi::kMetaStateFrameReused;
  v.frameReused = v.reusedFrameLive || metaState(r) == abi::kMetaStateFrameOverwritten;
  if (v.frameTable && verdict != 0) v.kind = ViolationKind::UseAfterScope;
  // Checked against entry 0 (no allocation there) and inside the null page.
  if (verdict == 0 && !(site && site->inWindow()) && r.base == abi::kNullPageBytes && r.size == 0 - abi::kNullPageBytes && r.address < abi::kNullPageBytes)
    v.kind = ViolationKind::NullPointer;
  // (A non-zero verdict with the entry live: the pointer's temporal tag is not the entry's.)
  v.staleTag = verdict != 0 && metaState(r) == abi::kBstLive;
  switch (r.info & 0xFF) {
    case abi::kAccessWrite: v.access = "write"; break;
    case abi::kAccessAtomic: v.access = "atomic"; break;
    case abi::kAccessFree: v.access = "free"; break;
    default: v.access = "read"; break;
  }
  if ((r.info & 0xFF) == abi::kAccessFree) {
    // The free wrapper refused: twice where the pointer starts a device-heap block whose entry
    // is freed already, else invalid (inside a block, a block since given to another, memory
    // not of the device heap).
    uint8_t tag = static_cast<uint8_t>(r.meta >> abi::kMetaPointerTagShift);
    uint32_t state = metaState(r);
    v.kind = isDeviceHeapTag(tag) && state == abi::kBstFreed && r.base == r.address ? ViolationKind::DoubleFree
                                                                                      : ViolationKind::InvalidFree;
    v.staleTag = false;
  }
  v.size = r.info >> 8;
  v.address = r.address;
  v.checkedBase = r.base;
  v.checkedSize = r.size;
  if (site && site->objectPart) {
    // Checked from the region's start (base) to the part's end; the part's start is in the high
    // half of the size (abi::ErrorRecord::size). The report is about the part.
    uint64_t start = r.size >> 32, end = r.base + (r.size & 0xFFFFFFFFu);
    v.partOffset = start - r.base;
    v.checkedBase = start;
    v.checkedSize = end - start;
  }
  v.site = site;
  if (site && site->entry) v.kernels = {site->function};
  v.module = std::move(module);
  v.block = {r.block[0], r.block[1], r.block[2]};
  v.thread = {r.thread[0], r.thread[1], r.thread[2]};
  v.pointerTag = static_cast<uint8_t>(r.meta >> abi::kMetaPointerTagShift);
  v.allocation = allocation;
  return v;
}

std::vector<Violation> fold(std::vector<Violation> in) {
  std::vector<Violation> out;
  std::map<std::tuple<int, const Site*, const Allocation*, std::string>, size_t> seen;
  for (auto& v : in) {
    auto key = std::make_tuple(static_cast<int>(v.kind), v.site, v.allocation, v.module);
    bool kernel = v.site != nullptr;
    if (kernel) {
      auto it = seen.find(key);
      if (it != seen.end()) {
        ++out[it->second].repeats;
        continue;
      }
      seen[key] = out.size();
    }
    out.push_back(std::move(v));
  }
  return out;
}

void writeStderr(const std::string& text) {
  fflush(stderr);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(2, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(::abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status == 0 && d) return d.get();
  // nvcc's clone of a function, specialized for some of its callers (`_Z3visPii$1`), as GCC
  // names its own clones.
  const size_t dollar = mangled.rfind('$');
  if (dollar != std::string::npos && dollar + 1 < mangled.size() &&
      mangled.find_first_not_of("0123456789", dollar + 1) == std::string::npos) {
    const std::string base = mangled.substr(0, dollar), name = demangle(base);
    if (name != base) return fmt::format("{} [clone {}]", name, mangled.substr(dollar));
  }
  return mangled;
}

namespace {

std::string hex(uint64_t a) { return fmt::format("0x{:016x}", a); }

std::string where(const Violation& v) {
  if (!v.site) return fmt::format("an unknown site of module {}", v.module.empty() ? "?" : v.module);
  std::string ptx = fmt::format("PTX line {} of {}", v.site->ptxLine, v.module.empty() ? "?" : v.module);
  if (v.site->file.empty()) return fmt::format("{}: {}", ptx, v.site->instruction);
  std::string inlined;
  if (v.site->inlinedLine)
    inlined = fmt::format(", inlined into {}:{}{}", v.site->inlinedFile, v.site->inlinedLine,
                          v.site->inlinedColumn ? fmt::format(":{}", v.site->inlinedColumn) : "");
  return fmt::format("{}:{}{}{} ({}: {})", v.site->file, v.site->line,
                     v.site->column ? fmt::format(":{}", v.site->column) : "", inlined, ptx, v.site->instruction);
}

// "4 bytes after the end of", "8 bytes before", "at offset 12 of" the object at [base, base + bytes).
std::string relation(const Violation& v, uint64_t base, uint64_t bytes) {
  uint64_t end = base + bytes;
  // The distance from the start, signed: a window address below a start of 0 (a local frame
  // at local address 0, index -1) wraps to the top of the 64-bit range.
  int64_t from = static_cast<int64_t>(v.address - base);
  if (from < 0) return fmt::format("{} bytes before", -static_cast<uint64_t>(from));
  if (v.address >= end) return fmt::format("{} bytes after the end of", v.address - end);
  if (v.address + v.size > end)
    return fmt::format("at offset {} (the last {} of its {} bytes are past the end) of", v.address - base,
                       v.address + v.size - end, v.size);
  return fmt::format("at offset {} of", v.address - base);
}

// The variable a violation was checked against, as a report names it: the one its bounds' word
// names where the site could not (a pointer a caller passed, or one made from one of several of
// the function's arrays), else the site's; none where neither names one.
const Site* reportedObject(const Violation& v) {
  if (v.passedObject) return v.passedObject;
  return v.site && !v.site->object.empty() ? v.site : nullptr;
}

// "the 64-byte local array at frame offset 64 of f(int) (...)", or the whole frame where its
// arrays are not told apart: a local variable (nvcc's depot) `s` names, of a known size.
std::string localFrameLine(const Site& s) {
  if (s.objectFrameArray)
    return fmt::format("the {}-byte local array at frame offset {} of {} ('{}', its arrays told apart where nvcc "
                       "starts them)",
                       s.objectBytes, s.objectFrameOffset, demangle(s.function), s.object);
  return fmt::format("the {}-byte local frame of {} ('{}': its local arrays, which cucatch does not tell apart)",
                     s.objectBytes, demangle(s.function), s.object);
}

// "the 256-byte shared array 'k()::tile'", "dynamic shared memory (512 bytes at this launch)".
std::string objectLine(const Violation& v) {
  const Site& s = *reportedObject(v);
  std::string name = demangle(s.object);
  if (s.objectSpace == "shared" && s.objectPart)
    return fmt::format("the part at offset {} of the dynamic shared memory '{}' ({} bytes at this launch; the "
                       "parts are where the kernel's addresses start at different uniform offsets)",
                       v.partOffset, name, v.checkedSize);
  if (s.objectSpace == "shared" && s.objectDynamic)
    return fmt::format("the dynamic shared memory '{}' ({} bytes at this launch)", name, v.checkedSize);
  if (s.objectSpace == "shared") return fmt::format("the {}-byte shared array '{}' (__shared__)", s.objectBytes, name);
  if (s.objectSpace == "const") return fmt::format("the {}-byte constant array '{}' (__constant__)", s.objectBytes, name);
  if (s.objectSpace == "local" && s.objectDynamic)
    return fmt::format("the {}-byte block alloca'd by {} (the size it asked for at this call)", v.checkedSize,
                       demangle(s.function));
  if (s.objectSpace == "local") return localFrameLine(s);
  return fmt::format("the {}-byte module variable '{}' (__device__)", s.objectBytes, name);
}

// For an access checked against one array of a local frame (`s`: the reported object, or the
// frame table's) that landed wholly in the frame and at an address outside that array (so in
// another array of the frame): its offset in the frame. None otherwise: an access that starts in
// its own array and runs past its end, or one that leaves the frame, is an overflow whole-frame
// checks report too; and none where the site table does not give the frame's size.
std::optional<uint64_t> offsetInNeighbourArray(const Violation& v, const Site* s) {
  if (!s || s->objectSpace != "local" || !s->objectFrameArray || !s->objectFrameBytes ||
      v.checkedBase < s->objectFrameOffset)
    return std::nullopt;
  uint64_t frame = v.checkedBase - s->objectFrameOffset;
  bool inOwnArray = v.address >= v.checkedBase && v.address - v.checkedBase < v.checkedSize;
  if (inOwnArray || v.address < frame || v.address - frame >= s->objectFrameBytes ||
      s->objectFrameBytes - (v.address - frame) < v.size)
    return std::nullopt;
  return v.address - frame;
}

// That, said, with the way back to whole-frame checks should nvcc have started an array inside
// another (docs/design.md); "" otherwise.
std::string neighbourArrayLine(const Violation& v, const Site* s) {
  std::optional<uint64_t> at = offsetInNeighbourArray(v, s);
  if (!at) return {};
  return fmt::format("cucatch:   (at offset {} of the same {}-byte frame, in another of its arrays. cucatch tells a "
                     "frame's arrays apart where nvcc's PTX starts them; should this access be correct, nvcc started "
                     "an array inside another: CUCATCH_PTX_FLAGS=--no-local-objects checks whole frames, and please "
                     "report it)\n",
                     *at, s->objectFrameBytes);
}

// The object the frame table placed a pointer in: one array of a frame (where the unit's table
// of frame arrays gave them), a whole frame, or none (an alloca'd block, two frames or two
// arrays whose boundary the pointer was at).
std::string tableFrameLine(const Violation& v) {
  if (v.tableFrame) return localFrameLine(*v.tableFrame);
  return fmt::format("the {} bytes of local memory at {} (an alloca'd block, or two frames or two arrays of a frame "
                     "whose boundary the pointer was at)",
                     v.checkedSize, hex(v.checkedBase));
}

// The bounds a pointer was checked against are an object of the accessing function's own frame,
// named by the bounds (the site could not name it: the pointer may be made from one of several
// of the frame's arrays), not given by a caller.
bool ownFrameObject(const Violation& v) { return v.passedObject && v.site && v.site->objectOfOwnFrame; }

// " in shared memory" / " in constant memory": the window an access went to, where not device memory.
std::string windowName(const Violation& v) {
  if (v.sharedWindow) return " in shared memory";
  if (v.liveFrames || v.frameTable) return " in local memory";
  if (v.heapBlock) return " in device heap memory";
  if (!v.site) return {};
  // A generic access through a pointer into a shared or constant variable: the variable's.
  const std::string& space =
      v.site->inWindow() ? v.site->space : v.passedObject ? v.passedObject->objectSpace : v.site->objectSpace;
  if (space == "shared") return " in shared memory";
  if (space == "const") return " in constant memory";
  if (space == "local") return " in local memory";
  return {};
}

void frames(std::string& out, const char* title, const Backtrace& bt, const Symbolizer& symbolize) {
  out += fmt::format("cucatch:   {}:\n", title);
  if (bt.empty()) out += "cucatch:     (no backtrace recorded)\n";
  for (size_t i = 0; i < bt.size(); ++i) out += fmt::format("cucatch:     #{} {}\n", i, symbolize(bt[i]));
}

std::string allocationLine(const Allocation& a) {
  return fmt::format("a {}-byte {} allocation at {}", a.size, memoryKindName(a.kind), hex(a.base));
}

std::string heapBlockLine(const DeviceHeapBlock& b, bool sayFreed = true) {
  return fmt::format("the {}-byte device heap block at {}{}", b.size, hex(b.base), b.freedBefore && sayFreed ? ", freed" : "");
}

// "thread (3,0,0) of block (0,0,0) of kernel k at file.cu:12": a malloc or free in a kernel.
std::string heapCallLine(const DeviceHeapCall& c) {
  std::string where = "an unknown site", function;
  if (c.site) {
    where = c.site->file.empty() ? fmt::format("PTX line {} of {}", c.site->ptxLine, c.module)
                                 : fmt::format("{}:{}", c.site->file, c.site->line);
    // The device runtime's cudaMalloc and cudaFree are inline functions of its header: the
    // program's own line is where they were inlined.
    if (c.site->inlinedLine) where += fmt::format(", inlined into {}:{}", c.site->inlinedFile, c.site->inlinedLine);
    function = fmt::format(" of {} {}", c.site->entry ? "kernel" : "device function", demangle(c.site->function));
  }
  return fmt::format("thread ({},{},{}) of block ({},{},{}){} at {}", c.thread[0], c.thread[1], c.thread[2], c.block[0],
                     c.block[1], c.block[2], function, where);
}

void heapCalls(std::string& out, const DeviceHeapBlock& b) {
  auto line = [](const std::optional<DeviceHeapCall>& call, bool unknown) {
    return call      ? heapCallLine(*call)
           : unknown ? std::string("(not known: the block's tag was given to another block before this report)")
                     : std::string("(not recorded)");
  };
  out += "cucatch:   allocated by " + line(b.allocated, b.allocatedUnknown) + "\n";
  if (b.freedBefore) out += "cucatch:   freed by " + line(b.freed, b.freedUnknown) + "\n";
}

// "in kernel k at block (0,0,0) thread (1,0,0)", "in device function f, called from ...".
std::string kernelLine(const Violation& v) {
  std::string kernel;
  if (v.kernels.size() == 1) kernel = fmt::format("kernel {}", demangle(v.kernels[0]));
  else if (v.kernels.empty()) kernel = "an unknown kernel";
  else {
    kernel = "one of the kernels";
    for (size_t i = 0; i < v.kernels.size(); ++i) kernel += (i ? ", " : " ") + demangle(v.kernels[i]);
  }
  if (v.site && !v.site->entry) kernel = fmt::format("device function {}, called from {}", demangle(v.site->function), kernel);
  return fmt::format("cucatch:   in {} at block ({},{},{}) thread ({},{},{})\n", kernel, v.block[0], v.block[1],
                     v.block[2], v.thread[0], v.thread[1], v.thread[2]);
}

}  // namespace

std::string formatText(const Violation& v, const Metadata& metadata, const Symbolizer& symbolize) {
  std::string out;
  const Allocation* a = v.allocation;
  switch (v.kind) {
    case ViolationKind::OutOfBounds:
    case ViolationKind::UseAfterFree:
    case ViolationKind::UseAfterScope:
    case ViolationKind::NullPointer: {
      out += fmt::format("cucatch: ERROR: {} {} of {} bytes{} at {}\n", violationKindName(v.kind), v.access, v.size,
                         windowName(v), hex(v.address));
      out += kernelLine(v);
      out += fmt::format("cucatch:   at {}\n", where(v));
      if (v.staleTag)
        out += fmt::format("cucatch:   the pointer carries tag {}, which its table entry no longer has: it "
                           "points into memory freed and reallocated since\n",
                           v.pointerTag);
      if (v.kind == ViolationKind::NullPointer) {
        out += fmt::format("cucatch:   address is {} bytes from null: the pointer is null, or an offset from a null "
                           "pointer\n",
                           v.address);
      } else if (a) {
        out += fmt::format("cucatch:   address is {} {}{}\n", relation(v, a->base, a->size), allocationLine(*a),
                           a->live ? "" : ", freed");
        const Allocation* hit = metadata.find(v.address);
        if (hit && hit != a && hit->live && v.kind == ViolationKind::OutOfBounds)
          out += fmt::format("cucatch:   (it lands inside {}, a different live allocation)\n", allocationLine(*hit));
        frames(out, "allocated at", a->allocatedAt, symbolize);
        if (!a->live) frames(out, "freed at", a->freedAt, symbolize);
      } else if (v.heapBlock) {
        out += fmt::format("cucatch:   address is {} {}\n", relation(v, v.heapBlock->base, v.heapBlock->size),
                           heapBlockLine(*v.heapBlock));
        heapCalls(out, *v.heapBlock);
      } else if (v.liveFrames && v.checkedBase == abi::kNoLiveLocal) {
        out += fmt::format("cucatch:   the address is in local memory, and {} has no local memory of its own (a kernel "
                           "with no local variable; no function it called is still running): it is in the frame of a "
                           "function that has returned (a pointer to its local memory used after it returned)\n",
                           v.site ? demangle(v.site->function) : std::string("the kernel"));
      } else if (v.liveFrames) {
        std::string frame = v.liveFrame ? fmt::format("the {}-byte local frame of {} ('{}')", v.liveFrame->objectBytes,
                                                        demangle(v.liveFrame->function), v.liveFrame->object)
                                          : std::string("the kernel's local frame");
        out += fmt::format("cucatch:   address is {} {}, the only local memory live in the kernel (no function it called "
                           "is still running): it is in the frame of a function that has returned (a pointer to its "
                           "local memory used after it returned), or past the kernel's own arrays\n",
                           relation(v, v.checkedBase, v.checkedSize), frame);
      } else if (v.frameTable) {
        std::string frame = tableFrameLine(v);
        if (v.frameReused && !v.reusedFrameLive)
          out += fmt::format("cucatch:   address is {} {}, which has returned, and a later call's frame now lies where "
                             "it was: a pointer to its local memory used after it returned\n",
                             relation(v, v.checkedBase, v.checkedSize), frame);
        else if (v.frameReused)
          out += fmt::format("cucatch:   address is {} {}, live on this thread's stack, but the pointer was not made in "
                             "it: the frame the pointer was made in has returned, and a later call's frame lies "
                             "where it was (a pointer to its local memory used after it returned)\n",
                             relation(v, v.checkedBase, v.checkedSize), frame);
        else if (v.kind == ViolationKind::UseAfterScope && v.checkedBase == abi::kNoLiveLocal)
          out += "cucatch:   the address is in local memory, in no frame live on this thread's stack: it is in the "
                 "frame of a function that has returned (a pointer to its local memory used after it returned)\n";
        else if (v.kind == ViolationKind::UseAfterScope)
          out += fmt::format("cucatch:   address is {} {}, which has returned: a pointer to its local memory used "
                             "after it returned (the frame is no longer on this thread's stack)\n",
                             relation(v, v.checkedBase, v.checkedSize), frame);
        else
          out += fmt::format("cucatch:   address is {} {}, live on this thread's stack (the pointer's origin is not "
                             "known in {}: its frame was found by its address)\n{}",
                             relation(v, v.checkedBase, v.checkedSize), frame,
                             v.site ? demangle(v.site->function) : std::string("the device function"),
                             neighbourArrayLine(v, v.tableFrame));
      } else if (v.sharedWindow) {
        out += fmt::format("cucatch:   address is {} this block's shared memory ({} bytes at this launch, static and "
                           "dynamic, from {}): the pointer's origin is not known here, so it was checked against the "
                           "whole window\n",
                           relation(v, v.checkedBase, v.checkedSize), v.checkedSize, hex(v.checkedBase));
      } else if ((v.site && !v.site->object.empty()) || ownFrameObject(v)) {
        out += fmt::format("cucatch:   address is {} {}\n", relation(v, v.checkedBase, v.checkedSize), objectLine(v));
        out += neighbourArrayLine(v, reportedObject(v));
      } else if (v.passedObject) {
        out += fmt::format("cucatch:   address is {} {}, whose bounds {} {} was given with the pointer\n",
                           relation(v, v.checkedBase, v.checkedSize), objectLine(v),
                           v.site->entry ? "kernel" : "device function", demangle(v.site->function));
        out += neighbourArrayLine(v, reportedObject(v));
      } else if (v.site && v.site->space == "shared") {
        out += fmt::format("cucatch:   address is {} the {}-byte shared object at {} it was made from\n",
                           relation(v, v.checkedBase, v.checkedSize), v.checkedSize, hex(v.checkedBase));
      } else {
        out += "cucatch:   the allocation is no longer known to cucatch\n";
      }
      if (v.repeats)
        out += fmt::format("cucatch:   {} more threads made the same access at this site (not shown)\n", v.repeats);
      break;
    }
    case ViolationKind::DoubleFree:
    case ViolationKind::InvalidFree:
      if (v.site) {  // free in a kernel (the device heap)
        out += fmt::format("cucatch: ERROR: {} of {} in device heap memory\n", violationKindName(v.kind), hex(v.address));
        out += kernelLine(v);
        out += fmt::format("cucatch:   at {}\n", where(v));
        if (v.heapBlock && v.kind == ViolationKind::DoubleFree) {
          out += fmt::format("cucatch:   {} was freed before\n", heapBlockLine(*v.heapBlock, false));
          heapCalls(out, *v.heapBlock);
        } else if (v.heapBlock) {
          out += fmt::format("cucatch:   the address is {} {} (a free takes the pointer malloc returned)\n",
                             relation(v, v.heapBlock->base, v.heapBlock->size), heapBlockLine(*v.heapBlock));
          heapCalls(out, *v.heapBlock);
        } else if (a) {
          out += fmt::format("cucatch:   the address is {} {}, not a block of the device heap (device free takes "
                             "what device malloc returned)\n",
                             relation(v, a->base, a->size), allocationLine(*a));
          frames(out, "allocated at", a->allocatedAt, symbolize);
        } else {
          out += "cucatch:   the address was not returned by device malloc\n";
        }
        out += "cucatch:   the free was not made\n";
        break;
      }
      out += fmt::format("cucatch: ERROR: {} of {}\n", violationKindName(v.kind), hex(v.address));
      frames(out, "freed at", v.backtrace, symbolize);
      if (a) {
        if (v.kind == ViolationKind::DoubleFree) {
          out += fmt::format("cucatch:   {} was freed before\n", allocationLine(*a));
          frames(out, "first freed at", a->freedAt, symbolize);
        } else {
          out += fmt::format("cucatch:   the address is at offset {} of {}\n", v.address - a->base, allocationLine(*a));
        }
        frames(out, "allocated at", a->allocatedAt, symbolize);
      } else {
        out += "cucatch:   the address was not returned by any allocation cucatch saw\n";
      }
      break;
    case ViolationKind::Leak:
      out += fmt::format("cucatch: ERROR: leak of {}, never freed\n", a ? allocationLine(*a) : std::string("?"));
      if (a) frames(out, "allocated at", a->allocatedAt, symbolize);
      break;
  }
  return out;
}

// A site's "inlined_at" (where its code was inlined), if it was.
static void putInlinedAt(nlohmann::json& j, const Site& s) {
  if (s.inlinedLine) j["inlined_at"] = {{"file", s.inlinedFile}, {"line", s.inlinedLine}, {"column", s.inlinedColumn}};
}

nlohmann::json toJson(const Violation& v, const Symbolizer& symbolize) {
  auto frameList = [&](const Backtrace& bt) {
    nlohmann::json l = nlohmann::json::array();
    for (uintptr_t f : bt) l.push_back(symbolize(f));
    return l;
  };
  nlohmann::json j{{"kind", violationKindName(v.kind)}, {"address", hex(v.address)}};
  if (v.site && !v.site->space.empty()) j["space"] = v.site->space;
  // A device-side violation (an access, or a free in a kernel): where and by which thread.
  if (v.site || v.kind == ViolationKind::OutOfBounds || v.kind == ViolationKind::UseAfterFree ||
      v.kind == ViolationKind::NullPointer) {
    j["access"] = v.access;
    j["size"] = v.size;
    j["block"] = v.block;
    j["thread"] = v.thread;
    j["module"] = v.module;
    j["pointer_tag"] = v.pointerTag;
    j["stale_tag"] = v.staleTag;
    j["repeats"] = v.repeats;
    if (v.kernels.size() == 1) {
      j["kernel"] = demangle(v.kernels[0]);
      j["kernel_mangled"] = v.kernels[0];
    }
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& k : v.kernels) candidates.push_back(demangle(k));
    j["kernels"] = candidates;
    if (v.site) {
      j["function"] = demangle(v.site->function);
      putInlinedAt(j, *v.site);
      j["file"] = v.site->file;
      j["line"] = v.site->line;
      j["column"] = v.site->column;
      j["ptx_line"] = v.site->ptxLine;
      j["instruction"] = v.site->instruction;
    }
  }
  if (v.kind == ViolationKind::NullPointer) j["offset_from_null"] = v.address;
  if (v.sharedWindow)
    j["window"] = {{"space", "shared"},
                   {"base", hex(v.checkedBase)},
                   {"size", v.checkedSize},
                   {"offset", static_cast<int64_t>(v.address - v.checkedBase)}};
  if (v.liveFrames) {
    // The local memory live in the kernel (its frame), and where the address is from it; or
    // that the kernel has none.
    nlohmann::json f;
    if (v.site) f["function"] = demangle(v.site->function);
    if (v.checkedBase == abi::kNoLiveLocal) {
      f["no_local_memory"] = true;
    } else {
      f["base"] = hex(v.checkedBase);
      f["size"] = v.checkedSize;
      f["offset"] = static_cast<int64_t>(v.address - v.checkedBase);
      if (v.liveFrame) f["name"] = v.liveFrame->object;
    }
    j["live_frame"] = f;
  }
  if (v.frameTable) {
    // The frame the table placed the address in, live or returned; or none that it holds.
    nlohmann::json f;
    f["returned"] = v.kind == ViolationKind::UseAfterScope;
    if (v.frameReused) f["reused"] = true;  // a later call's frame lies where the pointer's was
    if (v.reusedFrameLive) f["live"] = true;  // the frame named is that one, not the pointer's
    if (v.checkedBase != abi::kNoLiveLocal) {
      f["base"] = hex(v.checkedBase);
      f["size"] = v.checkedSize;
      f["offset"] = static_cast<int64_t>(v.address - v.checkedBase);
      if (v.tableFrame) {
        f["function"] = demangle(v.tableFrame->function);
        f["name"] = v.tableFrame->object;
        if (v.tableFrame->objectFrameArray) {
          // One array of that frame, not all of it.
          f["array"] = {{"frame_offset", v.tableFrame->objectFrameOffset}, {"size", v.tableFrame->objectBytes}};
          if (auto at = offsetInNeighbourArray(v, v.tableFrame))
            f["array"]["neighbour"] = {{"frame_offset", *at}, {"frame_bytes", v.tableFrame->objectFrameBytes}};
        }
      } else {
        f["unnamed"] = true;  // an alloca'd block, or two frames or two arrays at whose boundary the pointer was
      }
    }
    j["table_frame"] = f;
  }
  const Site* object = reportedObject(v);
  if (!v.sharedWindow && !v.allocation && object && v.kind == ViolationKind::OutOfBounds) {
    j["object"] = {{"name", demangle(object->object)},
                   {"space", object->objectSpace},
                   {"dynamic", object->objectDynamic},
                   {"size", object->objectDynamic ? v.checkedSize : object->objectBytes},
                   {"offset", static_cast<int64_t>(v.address - v.checkedBase)}};
    if (object->objectPart) j["object"]["part"] = {{"offset", v.partOffset}};
    if (object->objectFrameArray) j["object"]["frame_offset"] = object->objectFrameOffset;
    if (auto at = offsetInNeighbourArray(v, object))
      j["object"]["neighbour"] = {{"frame_offset", *at}, {"frame_bytes", object->objectFrameBytes}};
    if (v.passedObject && !ownFrameObject(v)) j["object"]["passed_by_caller"] = true;
  }
  if (const auto& b = v.heapBlock) {
    auto call = [](const DeviceHeapCall& c) {
      nlohmann::json k{{"block", c.block}, {"thread", c.thread}, {"module", c.module}};
      if (c.site) {
        k["function"] = demangle(c.site->function);
        k["kernel"] = c.site->entry;
        k["file"] = c.site->file;
        k["line"] = c.site->line;
        k["ptx_line"] = c.site->ptxLine;
        putInlinedAt(k, *c.site);
      }
      return k;
    };
    nlohmann::json hb{{"base", hex(b->base)},
                      {"size", b->size},
                      {"offset", static_cast<int64_t>(v.address - b->base)},
                      {"live", b->live}};
    if (b->allocated) hb["allocated_by"] = call(*b->allocated);
    if (b->freed && b->freedBefore) hb["freed_by"] = call(*b->freed);
    // Which of the tag's logged calls were another block's (not shown).
    if (b->allocatedUnknown || b->freedUnknown) {
      hb["log_reused"] = nlohmann::json::array();
      if (b->allocatedUnknown) hb["log_reused"].push_back("malloc");
      if (b->freedUnknown) hb["log_reused"].push_back("free");
    }
    j["heap_block"] = hb;
  }
  if (!v.backtrace.empty()) j["backtrace"] = frameList(v.backtrace);
  if (const Allocation* a = v.allocation) {
    nlohmann::json al{{"base", hex(a->base)},
                      {"size", a->size},
                      {"memory", memoryKindName(a->kind)},
                      {"offset", static_cast<int64_t>(v.address - a->base)},
                      {"live", a->live},
                      {"allocated_at", frameList(a->allocatedAt)}};
    if (!a->live) al["freed_at"] = frameList(a->freedAt);
    j["allocation"] = al;
  }
  return j;
}

}  // namespace cucatch::runtime
