#include "analysis/PointerAnalysis.h"

#include "ptx/Printer.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>

namespace cucatch::analysis {

using namespace cucatch::ptx;

// ----------------------------------------------------------------------------- registers

RegisterFile::RegisterFile(const Function& f) {
  auto add = [&](const VariableDecl& v) {
    if (v.space != ".reg") return;
    std::string type = v.type();
    for (const auto& d : v.declarators) {
      if (d.rangeCount) ranges_[d.name] = {*d.rangeCount, type};
      else exact_[d.name] = type;
    }
  };
  if (f.params)
    for (const auto& p : f.params->params) add(p);
  if (f.returns)
    for (const auto& p : f.returns->params) add(p);
  for (const auto& s : f.body)
    if (auto* v = std::get_if<VariableDecl>(&s)) add(*v);
}

std::string RegisterFile::type(const std::string& name) const {
  if (auto it = exact_.find(name); it != exact_.end()) return it->second;
  // %rd12 -> prefix %rd, index 12 (ranges declare prefix0 .. prefix(N-1))
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits == 0) return {};
  auto it = ranges_.find(name.substr(0, digits));
  if (it == ranges_.end()) return {};
  uint32_t index = 0;
  auto [p, ec] = std::from_chars(name.data() + digits, name.data() + name.size(), index);
  if (ec != std::errc() || index >= it->second.first) return {};
  return it->second.second;
}

bool RegisterFile::is64Bit(const std::string& name) const {
  std::string t = type(name);
  return t == ".b64" || t == ".u64" || t == ".s64";
}

bool RegisterFile::is32Bit(const std::string& name) const {
  std::string t = type(name);
  return t == ".b32" || t == ".u32" || t == ".s32";
}

bool RegisterFile::usesPrefix(std::string_view prefix) const {
  for (const auto& [n, t] : exact_)
    if (n.rfind(prefix, 0) == 0) return true;
  for (const auto& [n, r] : ranges_)
    if (n.rfind(prefix, 0) == 0) return true;
  return false;
}

// ----------------------------------------------------------------------------- symbols

namespace {

void addVariables(const VariableDecl& v, SymbolTable& out) {
  Space space = v.space == ".global" ? Space::Global
                : v.space == ".shared" ? Space::Shared
                : v.space == ".local"  ? Space::Local
                : v.space == ".const"  ? Space::Const
                                       : Space::Other;
  if (space == Space::Other) return;
  bool external = !v.linkage.empty() && v.linkage[0] == ".extern";
  unsigned element = typeSize(v.type());
  for (const auto& d : v.declarators) {
    SymbolInfo info{space, element};
    bool unsized = false;
    for (const auto& dim : d.dimensions) {
      uint64_t n = 0;
      if (!dim) unsized = true;
      if (!dim || std::from_chars(dim->data(), dim->data() + dim->size(), n).ec != std::errc()) {
        info.size = 0;
        break;
      }
      info.size *= n;
    }
    if (external) info.size = 0;
    info.dynamicShared = external && unsized && space == Space::Shared;
    out[d.name] = info;
  }
}

}  // namespace

SymbolTable moduleSymbols(const Module& m) {
  SymbolTable out;
  for (const auto& item : m.items)
    if (auto* v = std::get_if<VariableDecl>(&item)) addVariables(*v, out);
  return out;
}

SymbolTable functionSymbols(const Function& f, const SymbolTable& module) {
  SymbolTable out = module;
  for (const auto& s : f.body)
    if (auto* v = std::get_if<VariableDecl>(&s)) addVariables(*v, out);
  return out;
}

const SymbolInfo* sharedVariable(const SymbolTable& symbols, const std::string& symbol) {
  auto it = symbols.find(symbol);
  if (it == symbols.end() || it->second.space != Space::Shared) return nullptr;
  return it->second.size || it->second.dynamicShared ? &it->second : nullptr;
}

const SymbolInfo* localVariable(const SymbolTable& symbols, const std::string& symbol) {
  auto it = symbols.find(symbol);
  return it != symbols.end() && it->second.space == Space::Local && it->second.size ? &it->second : nullptr;
}

std::string_view baseOriginName(BaseOrigin o) {
  switch (o) {
    case BaseOrigin::None: return "none";
    case BaseOrigin::Parameter: return "parameter";
    case BaseOrigin::Load: return "load";
    case BaseOrigin::Atomic: return "atomic";
    case BaseOrigin::Symbol: return "symbol";
    case BaseOrigin::TwoPointers: return "two-pointers";
    case BaseOrigin::Alloca: return "alloca";
    case BaseOrigin::Unknown: return "unknown";
    case BaseOrigin::Converted: return "converted";
  }
  return "?";
}

std::optional<ParamSlot> paramSlotRead(const Instruction& in) {
  if (in.opcode != "ld" || spaceOfModifiers(in) != Space::Param || in.operands.size() < 2 ||
      in.operands[1].kind != OperandKind::Address || in.operands[1].text.empty())
    return std::nullopt;
  return ParamSlot{in.operands[1].text, in.operands[1].value};
}

// ----------------------------------------------------------------------------- classification

namespace {

Space cvtaSpace(const Instruction& in) {
  Space s = spaceOfModifiers(in);
  return s == Space::Generic ? Space::Global : s;
}

// Arithmetic that keeps a pointer's base when exactly one operand is a pointer.
bool isPointerArithmetic(const std::string& op) {
  return op == "add" || op == "sub" || op == "and" || op == "or" || op == "xor" || op == "mad";
}

// `mapa d, a, rank`: d is a's address in another block's shared memory (same layout), a
// derivation of a's base into the distributed shared memory window.
void markMapa(PointerDef& d, const Instruction& in, const std::string& source) {
  d.kind = DefKind::Derived;
  d.sources = {source};
  d.space = Space::SharedCluster;
  d.spaceFromCvta = true;
  d.mapaRank = printOperand(in.operands[2]);
}

// A 32-bit definition: a pointer only when made from a variable's symbol (a shared-space
// address), copied or selected from one, or (decided with the 64-bit arithmetic) computed
// from exactly one. Loads, atomics, special registers and everything else are integers.
void classifyNarrow(PointerDef& d, const Instruction& in, const std::string& sourceRegister,
                    const std::string& secondRegister, const std::string& sourceSymbol, const SymbolTable& symbols) {
  const std::string& op = in.opcode;
  d.kind = DefKind::Integer;
  if (op == "mapa" && !sourceRegister.empty() && in.operands.size() == 3) {
    markMapa(d, in, sourceRegister);
  } else if (op == "mov" || op == "cvta") {
    if (!sourceRegister.empty()) {
      d.kind = DefKind::Derived;
      d.sources = {sourceRegister};
      if (op == "cvta") {
        d.space = cvtaSpace(in);
        d.spaceFromCvta = true;
        d.cvtaToGeneric = !in.hasModifier(".to");
      }
    } else if (auto it = symbols.find(sourceSymbol); !sourceSymbol.empty() && it != symbols.end()) {
      d.kind = DefKind::Base;
      d.origin = BaseOrigin::Symbol;
      d.symbol = sourceSymbol;
      d.space = it->second.space;
    }
  } else if (op == "selp") {
    d.kind = DefKind::Select;
    d.sources = {sourceRegister, secondRegister};
  }
}

}  // namespace

std::string convertedPointer(const Function& f, size_t statement) {
  const auto* cvt = std::get_if<Instruction>(&f.body[statement]);
  if (statement == 0 || !cvt || cvt->opcode != "cvt" || cvt->guard ||
      cvt->modifiers != std::vector<std::string>{".u32", ".u64"} || cvt->operands.size() != 2 ||
      cvt->operands[1].kind != OperandKind::Name)
    return {};
  // (nvcc's conversion declares its 64-bit temporary in a scope of its own, one per conversion:
  // the statement before is the only definition of it the cvt sees.)
  const auto* cvta = std::get_if<Instruction>(&f.body[statement - 1]);
  if (!cvta || cvta->opcode != "cvta" || cvta->guard || !cvta->hasModifier(".to") || !cvta->hasModifier(".shared") ||
      !cvta->hasModifier(".u64") || cvta->operands.size() != 2 || cvta->operands[0].text != cvt->operands[1].text ||
      cvta->operands[1].kind != OperandKind::Name)
    return {};
  return cvta->operands[1].text;
}

PointerAnalysis::PointerAnalysis(const Function& f, const CFG& cfg, const SymbolTable& symbols)
    : regs_(f) {
  classify(f, symbols);
  for (const PointerDef& d : defs_)
    if (d.kind != DefKind::Integer && d.wide) mayHoldPointer_.insert(d.reg);
  findAccesses(f);
  computeRelevance();
  computeReaching(f, cfg);
  std::unordered_map<std::string, size_t> count;
  for (const PointerDef& d : defs_)
    if (++count[d.reg] == 1 && !std::get<Instruction>(f.body[d.statement]).guard) onlyDefinitions_[d.reg] = d.statement;
  for (const auto& [r, n] : count)
    if (n != 1) onlyDefinitions_.erase(r);
}

std::optional<size_t> PointerAnalysis::onlyDefinition(const std::string& reg) const {
  auto it = onlyDefinitions_.find(reg);
  if (it == onlyDefinitions_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> PointerAnalysis::sharedAddressOfParameter(const Function& f, const PointerDef& d) const {
  if (d.wide || d.kind != DefKind::Base || d.origin != BaseOrigin::Converted) return std::nullopt;
  const std::string pointer = convertedPointer(f, d.statement);
  std::optional<size_t> load = onlyDefinition(pointer);
  if (!load) return std::nullopt;
  for (size_t i : defsAt(*load))
    if (defs_[i].reg == pointer && defs_[i].kind == DefKind::Base && defs_[i].origin == BaseOrigin::Parameter) return i;
  return std::nullopt;
}

std::vector<size_t> PointerAnalysis::defsAt(size_t statement) const {
  auto it = defsAtStatement_.find(statement);
  return it == defsAtStatement_.end() ? std::vector<size_t>{} : it->second;
}

void PointerAnalysis::classify(const Function& f, const SymbolTable& symbols) {
  // Phase 1: what each 64-bit definition is, before knowing which registers hold pointers.
  struct Pending {
    size_t def;
    std::vector<std::string> candidates;  // register operands that may be the pointer
    std::string opcode;
  };
  std::vector<Pending> arithmetic;
  for (size_t i = 0; i < f.body.size(); ++i) {
    auto* in = std::get_if<Instruction>(&f.body[i]);
    if (!in) continue;
    forEachDefinedRegister(*in, [&](const std::string& reg) {
      bool wide = regs_.is64Bit(reg);
      if (!wide && !regs_.is32Bit(reg)) return;
      PointerDef d;
      d.statement = i;
      d.reg = reg;
      d.wide = wide;
      const auto& ops = in->operands;
      auto regOperand = [&](size_t k) -> std::string {
        return k < ops.size() && ops[k].kind == OperandKind::Name && regs_.isRegister(ops[k].text) ? ops[k].text : "";
      };
      auto symbolOperand = [&](size_t k) -> std::string {
        return k < ops.size() && ops[k].kind == OperandKind::Name && !regs_.isRegister(ops[k].text) ? ops[k].text : "";
      };
      const std::string& op = in->opcode;
      if (!wide) {
        classifyNarrow(d, *in, regOperand(1), regOperand(2), symbolOperand(1), symbols);
        if (d.kind == DefKind::Integer && !convertedPointer(f, i).empty()) {
          // A generic pointer made a shared address: a base of its own (its bounds are the
          // block's shared window, or what a caller passed with the pointer), which arithmetic
          // on it derives from.
          d.kind = DefKind::Base;
          d.origin = BaseOrigin::Converted;
          d.space = Space::Shared;
        }
        if (d.kind == DefKind::Integer && isPointerArithmetic(op)) {
          Pending p{defs_.size(), {}, op};
          if (op == "mad") p.candidates = {regOperand(3)};
          else p.candidates = {regOperand(1), regOperand(2)};
          arithmetic.push_back(std::move(p));
        }
      } else if (ops.size() > 0 && ops[0].kind == OperandKind::Vector) {
        d.kind = DefKind::Base;  // a vector load producing 64-bit lanes
        d.origin = BaseOrigin::Load;
      } else if (op == "ld" || op == "ldu") {
        d.kind = DefKind::Base;
        d.origin = spaceOfModifiers(*in) == Space::Param ? BaseOrigin::Parameter : BaseOrigin::Load;
      } else if (op == "atom") {
        d.kind = DefKind::Base;
        d.origin = BaseOrigin::Atomic;
      } else if (op == "alloca") {
        d.kind = DefKind::Base;
        d.origin = BaseOrigin::Alloca;
        d.space = Space::Local;
      } else if (op == "mapa" && !regOperand(1).empty() && ops.size() == 3) {
        markMapa(d, *in, regOperand(1));
      } else if (op == "mov" || op == "cvta") {
        if (std::string src = regOperand(1); !src.empty()) {
          d.kind = DefKind::Derived;
          d.sources = {src};
          if (op == "cvta") {
            d.space = cvtaSpace(*in);
            d.spaceFromCvta = true;
            d.cvtaToGeneric = !in->hasModifier(".to");
          }
        } else if (std::string sym = symbolOperand(1); !sym.empty()) {
          d.kind = DefKind::Base;
          d.origin = BaseOrigin::Symbol;
          d.symbol = sym;
          auto it = symbols.find(sym);
          d.space = it != symbols.end() ? it->second.space : Space::Other;  // a function, a label
          if (op == "cvta" && d.space == Space::Other) d.space = cvtaSpace(*in);
        } else if (ops.size() > 1 && ops[1].kind == OperandKind::Vector) {
          d.kind = DefKind::Base;
          d.origin = BaseOrigin::Unknown;  // packed from 32-bit halves
        } else {
          d.kind = DefKind::Integer;
        }
      } else if (op == "selp") {
        d.kind = DefKind::Select;
        d.sources = {regOperand(1), regOperand(2)};
      } else if (op == "cvt" && in->hasModifier(".u64") && in->hasModifier(".u32") && !regOperand(1).empty() &&
                 regs_.is32Bit(regOperand(1))) {
        // Zero-extending a 32-bit value: a shared-window address on its way to a generic
        // pointer (`cvt.u64.u32 %rd, %r; cvta.shared.u64 ...`, as -G code does it) when the
        // value is a pointer (decided in phase 2, like arithmetic).
        d.kind = DefKind::Integer;
        arithmetic.push_back(Pending{defs_.size(), {regOperand(1)}, op});
      } else if (isPointerArithmetic(op)) {
        d.kind = DefKind::Integer;  // decided in phase 2
        Pending p{defs_.size(), {}, op};
        if (op == "mad") p.candidates = {regOperand(3)};
        else p.candidates = {regOperand(1), regOperand(2)};
        arithmetic.push_back(std::move(p));
      } else {
        d.kind = DefKind::Integer;
      }
      defsAtStatement_[i].push_back(defs_.size());
      defs_.push_back(std::move(d));
    });
  }

  // Phase 2: registers holding pointers (fixpoint), then arithmetic resolved by them.
  std::unordered_set<std::string> pointerValued;
  for (bool changed = true; changed;) {
    changed = false;
    auto mark = [&](const std::string& r) {
      if (pointerValued.insert(r).second) changed = true;
    };
    for (const auto& d : defs_) {
      if (d.kind == DefKind::Base) mark(d.reg);
      for (const auto& s : d.sources)
        if (!s.empty() && pointerValued.count(s) && (d.kind == DefKind::Derived || d.kind == DefKind::Select)) mark(d.reg);
    }
    for (const auto& p : arithmetic) {
      bool any = false;
      for (size_t k = 0; k < p.candidates.size(); ++k)
        if (!p.candidates[k].empty() && pointerValued.count(p.candidates[k]) && !(p.opcode == "sub" && k == 1)) any = true;
      if (any) mark(defs_[p.def].reg);
    }
  }
  for (const auto& p : arithmetic) {
    PointerDef& d = defs_[p.def];
    std::vector<std::string> pointers;
    for (const auto& c : p.candidates)
      if (!c.empty() && pointerValued.count(c)) pointers.push_back(c);
    if (p.opcode == "sub") {
      // p - n keeps p's base; p - q is a distance.
      if (!p.candidates[0].empty() && pointerValued.count(p.candidates[0]) &&
          (p.candidates[1].empty() || !pointerValued.count(p.candidates[1]))) {
        d.kind = DefKind::Derived;
        d.sources = {p.candidates[0]};
      }
    } else if (pointers.size() == 1) {
      d.kind = DefKind::Derived;
      d.sources = pointers;
    } else if (pointers.size() == 2) {
      d.kind = DefKind::Base;
      d.origin = BaseOrigin::TwoPointers;
    }
  }

  // Phase 3: known spaces flow along derivations (fixpoint over register joins).
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_map<std::string, Space> next;
    for (auto& d : defs_) {
      if (d.kind == DefKind::Derived && !d.spaceFromCvta) {
        auto it = regSpace_.find(d.sources[0]);
        d.space = it == regSpace_.end() ? Space::Generic : it->second;
      }
      Space s = d.kind == DefKind::Integer ? Space::Generic : d.space;
      auto [it, fresh] = next.emplace(d.reg, s);
      if (!fresh && it->second != s) it->second = Space::Generic;
    }
    if (next != regSpace_) {
      regSpace_ = std::move(next);
      changed = true;
    }
  }
}

void PointerAnalysis::findAccesses(const Function& f) {
  for (size_t i = 0; i < f.body.size(); ++i) {
    auto* in = std::get_if<Instruction>(&f.body[i]);
    if (!in) continue;
    for (const MemoryAccess& access : memoryAccessesOf(*in)) {
      AccessSite site;
      site.statement = i;
      site.access = access;
      if (access.addressOperand < in->operands.size()) {
        const Operand& a = in->operands[access.addressOperand];
        if (a.kind == OperandKind::Address && a.extra.empty() && !a.text.empty()) {
          if (regs_.isRegister(a.text)) {
            site.addressRegister = a.text;
            auto it = regSpace_.find(a.text);
            site.pointerSpace = it == regSpace_.end() ? Space::Generic : it->second;
          } else {
            site.addressSymbol = a.text;
          }
        }
      }
      accesses_.push_back(std::move(site));
    }
  }
}

std::string PointerAnalysis::symbolOfEveryBase(const AccessSite& a) const {
  if (a.reachedByUndefined || a.reachingDefs.empty()) return {};
  std::string symbol;
  for (size_t d : a.reachingDefs) {
    const PointerDef& def = defs_[d];
    if (def.kind != DefKind::Base || def.origin != BaseOrigin::Symbol || (!symbol.empty() && def.symbol != symbol))
      return {};
    symbol = def.symbol;
  }
  return symbol;
}

std::optional<size_t> PointerAnalysis::allocaOfEveryBase(const AccessSite& a) const {
  if (a.reachedByUndefined || a.reachingDefs.empty()) return std::nullopt;
  std::optional<size_t> alloca;
  for (size_t d : a.reachingDefs) {
    if (defs_[d].kind != DefKind::Base || defs_[d].origin != BaseOrigin::Alloca || (alloca && *alloca != d))
      return std::nullopt;
    alloca = d;
  }
  return alloca;
}

std::unordered_set<std::string> PointerAnalysis::withSources(std::unordered_set<std::string> roots) const {
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& d : defs_) {
      if (!roots.count(d.reg)) continue;
      for (const auto& s : d.sources)
        if (!s.empty() && roots.insert(s).second) changed = true;
    }
  }
  return roots;
}

bool PointerAnalysis::madeOnlyFromSymbols(const std::string& reg,
                                          const std::function<bool(const std::string&)>& accept) const {
  std::unordered_set<std::string> from = withSources({reg});
  for (const auto& d : defs_) {
    if (!from.count(d.reg)) continue;
    switch (d.kind) {
      case DefKind::Derived:
        if (d.spaceFromCvta) return false;
        break;
      case DefKind::Select:
        if (d.sources[0].empty() || d.sources[1].empty()) return false;
        break;
      case DefKind::Base:
        if (d.origin != BaseOrigin::Symbol || !accept(d.symbol)) return false;
        break;
      case DefKind::Integer: return false;
    }
  }
  return true;
}

void PointerAnalysis::computeRelevance() {
  std::unordered_set<std::string> addresses;
  for (const auto& a : accesses_)
    if (!a.addressRegister.empty() && (regs_.is64Bit(a.addressRegister) || regs_.is32Bit(a.addressRegister)))
      addresses.insert(a.addressRegister);
  relevant_ = withSources(std::move(addresses));
}

void PointerAnalysis::computeReaching(const Function& f, const CFG& cfg) {
  // State: for each relevant register, the sorted set of Base/Integer definitions whose value
  // (possibly moved by Derived definitions) it may hold. kUndefined: a path with no definition.
  constexpr size_t kUndefined = SIZE_MAX;
  using State = std::map<std::string, std::vector<size_t>>;
  auto unite = [](std::vector<size_t>& into, const std::vector<size_t>& from) {
    std::vector<size_t> out;
    std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
    into = std::move(out);
  };
  auto lookup = [&](const State& s, const std::string& r) {
    auto it = s.find(r);
    return it == s.end() ? std::vector<size_t>{kUndefined} : it->second;
  };
  auto transfer = [&](State& s, size_t statement) {
    auto it = defsAtStatement_.find(statement);
    if (it == defsAtStatement_.end()) return;
    const auto* in = std::get_if<Instruction>(&f.body[statement]);
    State before = s;
    for (size_t di : it->second) {
      const PointerDef& d = defs_[di];
      if (!relevant_.count(d.reg)) continue;
      std::vector<size_t> value;
      if (d.kind == DefKind::Derived) {
        value = lookup(before, d.sources[0]);
      } else if (d.kind == DefKind::Select) {
        for (const auto& src : d.sources)
          if (!src.empty()) unite(value, lookup(before, src));
        if (value.empty()) value = {di};
      } else {
        value = {di};
      }
      if (in && in->guard) unite(value, lookup(before, d.reg));  // the definition may not happen
      s[d.reg] = std::move(value);
    }
  };
  size_t n = cfg.blocks().size();
  std::vector<State> out(n);
  std::vector<bool> seen(n, false);
  auto join = [&](size_t b) {
    State in;
    bool first = true;
    for (size_t p : cfg.blocks()[b].predecessors) {
      if (!seen[p]) continue;
      if (first) {
        in = out[p];
        first = false;
        continue;
      }
      for (auto& [r, v] : in) unite(v, lookup(out[p], r));
      for (const auto& [r, v] : out[p])
        if (!in.count(r)) {
          auto w = v;
          unite(w, {kUndefined});
          in[r] = std::move(w);
        }
    }
    return in;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b : cfg.rpo()) {
      State s = join(b);
      for (size_t i = cfg.blocks()[b].first; i < cfg.blocks()[b].last; ++i) transfer(s, i);
      if (!seen[b] || s != out[b]) {
        out[b] = std::move(s);
        seen[b] = true;
        changed = true;
      }
    }
  }
  // Read the fixpoint off at each access, one pass over each block.
  std::unordered_multimap<size_t, size_t> accessAt;
  for (size_t k = 0; k < accesses_.size(); ++k)
    if (!accesses_[k].addressRegister.empty()) accessAt.emplace(accesses_[k].statement, k);
  for (size_t b : cfg.rpo()) {
    State s = join(b);
    for (size_t i = cfg.blocks()[b].first; i < cfg.blocks()[b].last; ++i) {
      for (auto [it, end] = accessAt.equal_range(i); it != end; ++it) {
        AccessSite& a = accesses_[it->second];
        for (size_t d : lookup(s, a.addressRegister)) {
          if (d == kUndefined) a.reachedByUndefined = true;
          else a.reachingDefs.push_back(d);
        }
      }
      transfer(s, i);
    }
  }
}

}  // namespace cucatch::analysis
