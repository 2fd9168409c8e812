// Base-pointer analysis for one function: which definitions create a pointer with its own
// metadata ("base definitions"), which only move one (arithmetic on one base keeps it), the
// state space a pointer is known to point into, and, for every memory access, the base
// definitions that reach its address (a forward reaching-definitions data flow over the CFG;
// several at a join is a phi, which instrumentation handles by carrying metadata in
// registers alongside the pointer).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/CFG.h"
#include "ptx/IR.h"
#include "ptx/InstrInfo.h"

namespace cucatch::analysis {

// Names declared by `.reg` in a function (including `%r<12>` ranges) and their types.
class RegisterFile {
 public:
  explicit RegisterFile(const ptx::Function& f);
  bool isRegister(const std::string& name) const { return !type(name).empty(); }
  // ".b64", ".pred", ... ; "" if `name` is not a declared register.
  std::string type(const std::string& name) const;
  bool is64Bit(const std::string& name) const;
  bool is32Bit(const std::string& name) const;  // .b32/.u32/.s32 (shared-space addresses)
  // True if any declared register name or range starts with `prefix`.
  bool usesPrefix(std::string_view prefix) const;

 private:
  std::unordered_map<std::string, std::string> exact_;
  std::unordered_map<std::string, std::pair<uint32_t, std::string>> ranges_;  // prefix -> (count, type)
};

// A variable declared at module scope or at function scope (a `__shared__` array nvcc
// "demoted" into its kernel): its space and size, for pointers made from its symbol.
struct SymbolInfo {
  ptx::Space space = ptx::Space::Other;
  uint64_t size = 0;  // bytes; 0 when unknown (extern, unsized)
  // `.extern .shared` without a size (`extern __shared__ T x[]`): the dynamic shared memory of
  // the launch, %dynamic_smem_size bytes from its address.
  bool dynamicShared = false;
};
using SymbolTable = std::unordered_map<std::string, SymbolInfo>;
SymbolTable moduleSymbols(const ptx::Module& m);
// The variables `f` declares in its body, over `module`'s (the function's own win).
SymbolTable functionSymbols(const ptx::Function& f, const SymbolTable& module);
// The shared variable `symbol` names, if its bounds are known (a declared size, or the dynamic
// region); null for anything else.
const SymbolInfo* sharedVariable(const SymbolTable& symbols, const std::string& symbol);
// The local variable `symbol` names (a function's frame, nvcc's `__local_depot<n>`), if its size
// is known; null for anything else.
const SymbolInfo* localVariable(const SymbolTable& symbols, const std::string& symbol);

enum class DefKind {
  Base,     // new pointer: metadata is read here (READMETADATA)
  Derived,  // arithmetic on one pointer, copies, cvta: keeps the source's base
  Select,   // selp of two values: metadata selected alongside
  Integer,  // not a pointer (or of unknown origin): no metadata
};

// Alloca: `alloca` (a dynamic stack allocation), the local-window address of a new block.
// Converted: a 32-bit shared address made from a generic pointer (`cvta.to.shared.u64` right
// before `cvt.u32.u64`: convertedPointer).
enum class BaseOrigin { None, Parameter, Load, Atomic, Symbol, TwoPointers, Alloca, Unknown, Converted };
std::string_view baseOriginName(BaseOrigin o);

// Where statement `statement` of `f` is `cvt.u32.u64 %r, %x` right after `cvta.to.shared.u64 %x,
// %p` (nvcc's `__cvta_generic_to_shared`, and its code for a pointer it knows is shared): %p;
// else "".
std::string convertedPointer(const ptx::Function& f, size_t statement);

// The `.param` variable a `ld.param` reads, and at which byte offset ([name+offset]); nothing
// for another instruction or address form.
struct ParamSlot {
  std::string name;
  int64_t offset = 0;
};
std::optional<ParamSlot> paramSlotRead(const ptx::Instruction& in);

// Definitions of 64-bit registers (generic, global and const addresses) and of 32-bit ones
// (shared-space addresses). A 32-bit register is a pointer only when made from a variable's
// symbol (`mov.u32 %r, tile`): loaded and computed 32-bit values are integers.
struct PointerDef {
  size_t statement = 0;
  std::string reg;
  bool wide = true;  // a 64-bit register
  DefKind kind = DefKind::Integer;
  BaseOrigin origin = BaseOrigin::None;
  std::vector<std::string> sources;  // Derived: {source}; Select: {a, b} (registers or "")
  ptx::Space space = ptx::Space::Generic;  // what the pointer is known to point into
  bool spaceFromCvta = false;              // `space` was set by a cvta, not inherited
  bool cvtaToGeneric = false;              // that cvta made a generic address (cvta.shared, not cvta.to.shared)
  // `mapa`: the source's address in the shared memory of another block of the cluster, whose
  // rank is this operand (a register or an immediate).
  std::string mapaRank;
  std::string symbol;                      // origin Symbol: its name
};

struct AccessSite {
  size_t statement = 0;
  ptx::MemoryAccess access;
  std::string addressRegister;  // "" when the address is a symbol or absolute
  std::string addressSymbol;    // the symbol, for [sym+off]
  std::vector<size_t> reachingDefs;  // indices into defs() of the Base/Integer defs reaching it
  ptx::Space pointerSpace = ptx::Space::Generic;  // space known from the pointer's origin
  bool reachedByUndefined = false;  // some path reaches without any definition
};

class PointerAnalysis {
 public:
  // `symbols`: the variables visible in `f` (functionSymbols).
  PointerAnalysis(const ptx::Function& f, const CFG& cfg, const SymbolTable& symbols);

  const RegisterFile& registers() const { return regs_; }
  const std::vector<PointerDef>& defs() const { return defs_; }
  const std::vector<AccessSite>& accesses() const { return accesses_; }
  // Registers whose metadata some access needs (64-bit and 32-bit address registers).
  const std::unordered_set<std::string>& relevant() const { return relevant_; }
  // `roots` and every register their Derived/Select definitions read, transitively.
  std::unordered_set<std::string> withSources(std::unordered_set<std::string> roots) const;
  // Every value `reg` may hold is made from a symbol `accept` takes (moved by arithmetic,
  // copies, selects, zero-extension; not by a cvta into another window): every definition of
  // every register it is made from, reaching or not, is one of those.
  bool madeOnlyFromSymbols(const std::string& reg, const std::function<bool(const std::string&)>& accept) const;
  // Whether some definition of 64-bit register `reg` may make a pointer (not an integer).
  bool mayHoldPointer(const std::string& reg) const { return mayHoldPointer_.count(reg) != 0; }
  // The symbol every base definition reaching `a` was made from (a `mov` of one variable's
  // symbol on every path), or "" (other bases, or a path with no definition).
  std::string symbolOfEveryBase(const AccessSite& a) const;
  // The one `alloca` definition every base definition reaching `a` is (index into defs()), or
  // nothing (other bases, several allocas, or a path with no definition).
  std::optional<size_t> allocaOfEveryBase(const AccessSite& a) const;
  // Definitions made by one statement (indices into defs()).
  std::vector<size_t> defsAt(size_t statement) const;
  // The statement of `reg`'s definition where it is defined exactly once, unguarded (nvcc's PTX
  // is close to SSA): the value every use sees, whatever the path.
  std::optional<size_t> onlyDefinition(const std::string& reg) const;
  // Where `d` (a definition of `f`'s) makes a 32-bit shared address from a pointer parameter
  // itself (BaseOrigin::Converted: nvcc's code where every caller passes a shared pointer), and
  // the pointer's only definition is the parameter's `ld.param`: that definition (index into
  // defs()); nothing otherwise.
  std::optional<size_t> sharedAddressOfParameter(const ptx::Function& f, const PointerDef& d) const;

 private:
  void classify(const ptx::Function& f, const SymbolTable& symbols);
  void findAccesses(const ptx::Function& f);
  void computeRelevance();
  void computeReaching(const ptx::Function& f, const CFG& cfg);

  RegisterFile regs_;
  std::vector<PointerDef> defs_;
  std::unordered_map<std::string, ptx::Space> regSpace_;  // join of the spaces of a register's definitions
  std::unordered_map<size_t, std::vector<size_t>> defsAtStatement_;
  std::unordered_map<std::string, size_t> onlyDefinitions_;
  std::vector<AccessSite> accesses_;
  std::unordered_set<std::string> relevant_;
  std::unordered_set<std::string> mayHoldPointer_;
};

}  // namespace cucatch::analysis
