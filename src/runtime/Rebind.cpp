#include "runtime/Rebind.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/DynamicSection.h"
#include "runtime/LoaderCounts.h"

namespace cucatch::runtime {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT, kGlobDat = R_X86_64_GLOB_DAT, kAbs64 = R_X86_64_64;
#elif defined(__aarch64__)
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobDat = R_AARCH64_GLOB_DAT, kAbs64 = R_AARCH64_ABS64;
#else
#error "rebinding GOT slots is written for x86-64 and AArch64"
#endif

using Object = std::pair<uintptr_t, std::string>;  // load bias, path ("" for the program)

bool skipped(uintptr_t base, std::string_view name, uintptr_t self) {
  // Our own references, libcuda's to itself, the loader and the vDSO stay as they are.
  return base == self || name.find("libcuda.so") != std::string_view::npos ||
         name.find("ld-linux") != std::string_view::npos || name.find("linux-vdso") != std::string_view::npos;
}

struct Rewrite {
  const RebindTargets* targets;
  const std::unordered_map<std::string, void*>* foreign;  // symbol -> the loader's binding
  const std::set<Object>* ready;
  std::set<Object>* done;
  size_t rewritten = 0;
};

int rewriteObject(dl_phdr_info* info, size_t, void* data) {
  auto& w = *static_cast<Rewrite*>(data);
  Object object{info->dlpi_addr, info->dlpi_name ? info->dlpi_name : ""};
  if (!w.ready->count(object)) return 0;
  uintptr_t base = info->dlpi_addr;
  const ElfW(Dyn)* dynamic = nullptr;
  uintptr_t relroStart = 0, relroEnd = 0;
  long pageSize = sysconf(_SC_PAGESIZE);
  struct Range {
    uintptr_t start, end;
    bool writable;
  };
  std::vector<Range> loads;
  uintptr_t lowest = UINTPTR_MAX, highest = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + p.p_vaddr);
    if (p.p_type == PT_GNU_RELRO) {
      // As the loader protects it: whole pages only; the page holding its end stays writable.
      relroStart = (base + p.p_vaddr) & ~uintptr_t(pageSize - 1);
      relroEnd = (base + p.p_vaddr + p.p_memsz) & ~uintptr_t(pageSize - 1);
    }
    if (p.p_type == PT_LOAD) {
      loads.push_back({base + p.p_vaddr, base + p.p_vaddr + p.p_memsz, (p.p_flags & PF_W) != 0});
      lowest = std::min(lowest, base + p.p_vaddr);
      highest = std::max(highest, base + p.p_vaddr + p.p_memsz);
    }
  }
  w.done->insert(object);
  if (!dynamic) return 0;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const ElfW(Rela)* tables[2] = {nullptr, nullptr};
  size_t sizes[2] = {0, 0};
  bool rela = true;
  auto address = [&](ElfW(Addr) p) { return dynamicAddress(p, base); };
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = reinterpret_cast<const ElfW(Sym)*>(address(d->d_un.d_ptr)); break;
      case DT_STRTAB: strtab = reinterpret_cast<const char*>(address(d->d_un.d_ptr)); break;
      case DT_JMPREL: tables[0] = reinterpret_cast<const ElfW(Rela)*>(address(d->d_un.d_ptr)); break;
      case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
      case DT_RELA: tables[1] = reinterpret_cast<const ElfW(Rela)*>(address(d->d_un.d_ptr)); break;
      case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
      case DT_PLTREL: rela = d->d_un.d_val == DT_RELA; break;
      default: break;
    }
  }
  if (!symtab || !strtab || !rela) return 0;  // both supported targets use RELA
  for (int t = 0; t < 2; ++t) {
    if (!tables[t]) continue;
    for (size_t i = 0; i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = tables[t][i];
      uint32_t type = ELF64_R_TYPE(r.r_info);
      uint32_t index = ELF64_R_SYM(r.r_info);
      if (index == 0 || !(type == kJumpSlot || type == kGlobDat || (type == kAbs64 && r.r_addend == 0))) continue;
      if (symtab[index].st_shndx != SHN_UNDEF) continue;  // the object's own definition
      const char* symbol = strtab + symtab[index].st_name;
      // A quick test before the lookup: every name libcucatch defines starts so.
      if (!(symbol[0] == 'c' && symbol[1] == 'u') && std::strncmp(symbol, "__nvJitLink", 11) != 0) continue;
      auto ours = w.targets->definitions->find(symbol);
      if (ours == w.targets->definitions->end()) continue;
      auto* slot = reinterpret_cast<void**>(base + r.r_offset);
      void* current = *slot;
      if (current == ours->second) continue;
      auto theirs = w.foreign->find(symbol);
      bool bound = theirs != w.foreign->end() && theirs->second && current == theirs->second;
      // Lazy binding not done yet: the slot points at the object's own PLT stub.
      bool lazy = type == kJumpSlot && reinterpret_cast<uintptr_t>(current) >= lowest &&
                  reinterpret_cast<uintptr_t>(current) < highest;
      if (!bound && !lazy) continue;  // reassigned, or another interposer's
      uintptr_t a = reinterpret_cast<uintptr_t>(slot);
      bool relro = a >= relroStart && a < relroEnd;
      bool writable = false;
      for (const auto& l : loads) writable |= a >= l.start && a < l.end && l.writable;
      if (!relro && !writable) continue;  // text relocations: not ours to change
      void* page = reinterpret_cast<void*>(a & ~uintptr_t(pageSize - 1));
      if (relro && mprotect(page, pageSize, PROT_READ | PROT_WRITE) != 0) continue;
      __atomic_store_n(slot, ours->second, __ATOMIC_RELEASE);
      if (relro) mprotect(page, pageSize, PROT_READ);
      ++w.rewritten;
    }
  }
  return 0;
}

}  // namespace

size_t rebindReferences(const RebindTargets& targets) {
  static std::timed_mutex mutex;
  static std::set<Object> done;
  // The counts last looked at, read without the lock first: the usual call finds nothing new.
  static std::atomic<unsigned long long> lastAdds{~0ull}, lastSubs{~0ull};
  LoaderCounts now = loaderCounts();
  if (now.adds == lastAdds.load(std::memory_order_acquire) && now.subs == lastSubs.load(std::memory_order_acquire))
    return 0;
  // Another thread at it: this one waits for it (so that what it loaded is rebound before its
  // call goes on), but not for long, and then goes on, a later call looking again. That thread
  // may itself be waiting for the loader's lock (dladdr, dlopen below) held by this one, in a
  // dlopen whose constructor (or a dlclose whose destructor) called the hook that called this
  // (a review's find, reproduced on the CPU: with an unbounded wait both threads hung).
  static thread_local bool inside = false;
  if (inside) return 0;
  std::unique_lock lock(mutex, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::milliseconds(100))) return 0;
  inside = true;
  struct Leave {
    bool& inside;
    ~Leave() { inside = false; }
  } leave{inside};
  Dl_info self{};
  if (!dladdr(targets.self, &self)) return 0;
  auto seen = [&] {
    lastSubs.store(now.subs, std::memory_order_release);
    lastAdds.store(now.adds, std::memory_order_release);
  };
  // An object unloaded and another loaded at its address must be looked at again.
  if (now.subs != lastSubs.load(std::memory_order_relaxed)) done.clear();
  // 1. The objects not yet rebound (no loader calls inside the iteration: it holds a lock the
  //    loader takes in the other order).
  struct Collect {
    uintptr_t self;
    const std::set<Object>* done;
    std::vector<Object> found;
  } collect{reinterpret_cast<uintptr_t>(self.dli_fbase), &done, {}};
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void* data) {
    auto& c = *static_cast<Collect*>(data);
    Object o{info->dlpi_addr, info->dlpi_name ? info->dlpi_name : ""};
    if (!c.done->count(o) && !skipped(o.first, o.second, c.self)) c.found.push_back(std::move(o));
    return 0;
  }, &collect);
  if (collect.found.empty()) {
    seen();
    return 0;
  }
  // 2. Each is fully loaded and relocated once dlopen(RTLD_NOLOAD) returns it (that waits for a
  //    load in progress), and stays loaded while we hold the handle.
  std::set<Object> ready;
  std::vector<void*> handles;
  for (const auto& o : collect.found) {
    void* h = o.second.empty() ? dlopen(nullptr, RTLD_LAZY) : dlopen(o.second.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    handles.push_back(h);
    ready.insert(o);
  }
  std::unordered_map<std::string, void*> foreign;
  for (const auto& [name, ours] : *targets.definitions) foreign[name] = targets.foreign ? targets.foreign(name) : nullptr;
  // 3. Rewrite.
  Rewrite w{&targets, &foreign, &ready, &done};
  dl_iterate_phdr(rewriteObject, &w);
  seen();
  // The handles are let go outside the lock: a dlclose may be the last reference, and the
  // object's destructors may call a hook (which then finds this thread inside: it goes on).
  lock.unlock();
  for (void* h : handles) dlclose(h);
  return w.rewritten;
}

}  // namespace cucatch::runtime
