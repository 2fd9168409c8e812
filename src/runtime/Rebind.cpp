#include "runtime/Rebind.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace cucatch::runtime {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT, kGlobDat = R_X86_64_GLOB_DAT, kAbs64 = R_X86_64_64;
#elif defined(__aarch64__)
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobDat = R_AARCH64_GLOB_DAT, kAbs64 = R_AARCH64_ABS64;
#else
#error "rebinding GOT slots is written for x86-64 and AArch64"
#endif

struct Context {
  const std::unordered_map<std::string, void*>* definitions;
  uintptr_t selfBase;
  std::set<std::pair<uintptr_t, std::string>>* visited;
  size_t rewritten = 0;
};

// Writes `value` into the slot at `slot`, making its page writable for the moment if it is in
// the object's read-only-after-relocation segment.
void writeSlot(void** slot, void* value, uintptr_t relroStart, uintptr_t relroEnd) {
  uintptr_t a = reinterpret_cast<uintptr_t>(slot);
  bool relro = a >= relroStart && a < relroEnd;
  long pageSize = sysconf(_SC_PAGESIZE);
  void* page = reinterpret_cast<void*>(a & ~uintptr_t(pageSize - 1));
  if (relro && mprotect(page, pageSize, PROT_READ | PROT_WRITE) != 0) return;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  if (relro) mprotect(page, pageSize, PROT_READ);
}

int visit(dl_phdr_info* info, size_t, void* data) {
  auto& c = *static_cast<Context*>(data);
  uintptr_t base = info->dlpi_addr;
  std::string_view name = info->dlpi_name ? info->dlpi_name : "";
  if (!c.visited->emplace(base, std::string(name)).second) return 0;
  // Our own references, libcuda's to itself, the loader and the vDSO stay as they are.
  if (base == c.selfBase || name.find("libcuda.so") != std::string_view::npos ||
      name.find("ld-linux") != std::string_view::npos || name.find("linux-vdso") != std::string_view::npos)
    return 0;
  const ElfW(Dyn)* dynamic = nullptr;
  uintptr_t relroStart = 0, relroEnd = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + p.p_vaddr);
    if (p.p_type == PT_GNU_RELRO) {
      relroStart = base + p.p_vaddr;
      relroEnd = relroStart + p.p_memsz;
    }
  }
  if (!dynamic) return 0;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const ElfW(Rela)* tables[2] = {nullptr, nullptr};
  size_t sizes[2] = {0, 0};
  bool rela = true;
  auto address = [&](ElfW(Addr) p) {
    // The loader usually relocates these in place; where it did not they are offsets.
    return p < base ? p + base : p;
  };
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
      const char* symbol = strtab + symtab[index].st_name;
      if (symbol[0] != 'c' || symbol[1] != 'u') continue;
      auto it = c.definitions->find(symbol);
      if (it == c.definitions->end()) continue;
      auto* slot = reinterpret_cast<void**>(base + r.r_offset);
      if (*slot == it->second) continue;
      writeSlot(slot, it->second, relroStart, relroEnd);
      ++c.rewritten;
    }
  }
  return 0;
}

}  // namespace

size_t rebindDriverReferences(const std::unordered_map<std::string, void*>& definitions, const void* self) {
  static std::mutex mutex;
  static std::set<std::pair<uintptr_t, std::string>> visited;
  static unsigned long long lastAdds = ~0ull;
  // The loader counts the objects it has loaded: nothing new, nothing to do (one callback).
  unsigned long long adds = 0;
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void* out) {
    *static_cast<unsigned long long*>(out) = info->dlpi_adds;
    return 1;
  }, &adds);
  std::lock_guard lock(mutex);
  if (adds == lastAdds) return 0;
  lastAdds = adds;
  Dl_info info{};
  if (!dladdr(self, &info)) return 0;
  Context c{&definitions, reinterpret_cast<uintptr_t>(info.dli_fbase), &visited};
  // dli_fbase is the lowest mapped address; dlpi_addr the load bias: for a shared object built
  // to load at 0 they are the same.
  dl_iterate_phdr(visit, &c);
  return c.rewritten;
}

}  // namespace cucatch::runtime
