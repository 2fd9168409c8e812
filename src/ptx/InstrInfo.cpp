#include "ptx/InstrInfo.h"

#include <cstdio>
#include <unordered_set>

namespace cucatch::ptx {

std::string_view spaceName(Space s) {
  switch (s) {
    case Space::Generic: return "generic";
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::SharedCluster: return "shared::cluster";
    case Space::Local: return "local";
    case Space::Const: return "const";
    case Space::Param: return "param";
    case Space::Other: return "other";
  }
  return "?";
}

std::string_view accessKindName(AccessKind k) {
  switch (k) {
    case AccessKind::Read: return "read";
    case AccessKind::Write: return "write";
    case AccessKind::Atomic: return "atomic";
  }
  return "?";
}

unsigned typeSize(std::string_view m) {
  static constexpr struct { std::string_view name; unsigned size; } kTypes[] = {
      {".b8", 1},  {".u8", 1},     {".s8", 1},      {".b16", 2},  {".u16", 2},  {".s16", 2},
      {".f16", 2}, {".bf16", 2},   {".b32", 4},     {".u32", 4},  {".s32", 4},  {".f32", 4},
      {".f16x2", 4}, {".bf16x2", 4}, {".tf32", 4},  {".b64", 8},  {".u64", 8},  {".s64", 8},
      {".f64", 8}, {".b128", 16},  {".e4m3x2", 2},  {".e5m2x2", 2}};
  for (const auto& t : kTypes)
    if (t.name == m) return t.size;
  return 0;
}

Space spaceOfModifiers(const Instruction& in) {
  for (const auto& m : in.modifiers) {
    if (m == ".global") return Space::Global;
    if (m == ".shared" || m == ".shared::cta") return Space::Shared;
    if (m == ".shared::cluster") return Space::SharedCluster;
    if (m == ".local") return Space::Local;
    if (m == ".const") return Space::Const;
    if (m == ".param" || m.rfind(".param::", 0) == 0) return Space::Param;
  }
  return Space::Generic;
}

namespace {

// Element size times vector width, from modifiers such as .v4 .f32.
unsigned accessSize(const Instruction& in) {
  unsigned vector = 1, element = 0;
  for (const auto& m : in.modifiers) {
    if (m == ".v2") vector = 2;
    else if (m == ".v4") vector = 4;
    else if (m == ".v8") vector = 8;
    else if (unsigned s = typeSize(m)) element = s;  // the last type wins (cvt-like forms)
  }
  return vector * element;
}

// ldmatrix / stmatrix .m8n8: each participating lane gives the address of one 16-byte row:
// with .x4 every lane, with .x1 and .x2 only lanes 0-7 / 0-15 (the others' address operands are
// ignored and may hold anything, so their check is limited to those lanes). Other shapes
// (.m16n16, .m8n16: sm_100) are left out.
MemoryAccess matrixAccess(const Instruction& in, bool store) {
  MemoryAccess a;
  a.space = spaceOfModifiers(in);
  a.kind = store ? AccessKind::Write : AccessKind::Read;
  a.addressOperand = store ? 0 : 1;
  a.size = 16;
  if (!in.hasModifier(".m8n8"))
    a.uncheckable = "ldmatrix/stmatrix other than .m8n8: rows of another size";
  else if (in.hasModifier(".x1"))
    a.lanes = 8;
  else if (in.hasModifier(".x2"))
    a.lanes = 16;
  return a;
}

// The first [address] operand (mbarrier's forms put it first or after a result).
unsigned firstAddressOperand(const Instruction& in) {
  for (unsigned i = 0; i < in.operands.size(); ++i)
    if (in.operands[i].kind == OperandKind::Address) return i;
  return 0;
}

// A bulk copy between global and shared memory (cp.async.bulk.dst.src..., cp.reduce.async.bulk):
// its global side, `size` bytes (operand 2) at operand 1 (read, from global) or 0 (written, to
// global; a reduction's read-modify-write). False for any other pair of spaces.
bool bulkCopyAccess(const Instruction& in, MemoryAccess& a) {
  std::vector<std::string_view> spaces;
  for (const auto& m : in.modifiers)
    if (m == ".global" || m.rfind(".shared", 0) == 0) spaces.push_back(m);
  // (.ignore_oob: up to 15 bytes at either end may lie outside the allocation, by design.)
  if (spaces.size() != 2 || in.operands.size() < 3 || in.hasModifier(".ignore_oob")) return false;
  bool fromGlobal = spaces[1] == ".global", toGlobal = spaces[0] == ".global";
  if (fromGlobal == toGlobal) return false;
  a.space = Space::Global;
  a.kind = fromGlobal ? AccessKind::Read : in.hasModifier(".reduce") ? AccessKind::Atomic : AccessKind::Write;
  a.addressOperand = fromGlobal ? 1 : 0;
  a.extent = MemoryAccess::Extent{2, 1, 0};
  return true;
}

// wmma.load.{a,b,c}.sync.aligned.layout.shape.type [p], stride / wmma.store.d...: a fragment of
// `lines` rows (.row) or columns (.col) of `lineElements` elements each, `stride` elements apart:
// ((lines - 1) * stride + lineElements) * element bytes from p. Only where the stride is given and
// the element is a whole number of bytes (not .b1, .s4, .u4).
bool fragmentExtent(const Instruction& in, MemoryAccess& a) {
  unsigned m = 0, n = 0, k = 0, bytes = 0;
  char fragment = 0;
  bool row = false, col = false;
  for (const auto& mod : in.modifiers) {
    if (mod == ".a" || mod == ".b" || mod == ".c" || mod == ".d") fragment = mod[1];
    else if (mod == ".row") row = true;
    else if (mod == ".col") col = true;
    else if (mod.size() > 2 && mod[1] == 'm' && std::sscanf(mod.c_str(), ".m%un%uk%u", &m, &n, &k) == 3) continue;
    else if (unsigned b = typeSize(mod)) bytes = b;
  }
  unsigned strideOperand = 2;
  if (a.space != Space::Global && a.space != Space::Generic) return false;  // (shared: not checked)
  if (!fragment || row == col || !m || !n || !k || !bytes || in.operands.size() <= strideOperand) return false;
  const Operand& stride = in.operands[strideOperand];
  if (stride.kind != OperandKind::Name && stride.kind != OperandKind::Integer) return false;
  unsigned rows = fragment == 'b' ? k : m, cols = fragment == 'a' ? k : n;
  unsigned lines = row ? rows : cols, lineElements = row ? cols : rows;
  a.extent = MemoryAccess::Extent{strideOperand, uint64_t(lines - 1) * bytes, uint64_t(lineElements) * bytes};
  return true;
}

}  // namespace

std::vector<MemoryAccess> memoryAccessesOf(const Instruction& in) {
  const std::string& op = in.opcode;
  std::vector<MemoryAccess> out;
  MemoryAccess a;
  a.space = spaceOfModifiers(in);
  if (op == "ld" || op == "ldu") {
    a.kind = AccessKind::Read;
    a.addressOperand = 1;
    a.size = accessSize(in);
  } else if (op == "st") {
    a.kind = AccessKind::Write;
    a.addressOperand = 0;
    a.size = accessSize(in);
    if (in.hasModifier(".async")) a.uncheckable = "st.async (distributed shared memory)";
  } else if (op == "atom") {
    a.kind = AccessKind::Atomic;
    a.addressOperand = 1;
    a.size = accessSize(in);
  } else if (op == "red") {
    a.kind = AccessKind::Atomic;
    a.addressOperand = 0;
    a.size = accessSize(in);
    if (in.hasModifier(".async")) a.uncheckable = "red.async (distributed shared memory)";
  } else if (op == "cp" && in.hasModifier(".async") && in.hasModifier(".mbarrier")) {
    // cp.async.mbarrier.arrive [mbar]: an arrive on the 8-byte barrier object.
    a.kind = AccessKind::Atomic;
    a.addressOperand = 0;
    a.size = 8;
  } else if (op == "cp" && in.hasModifier(".async") && !in.hasModifier(".bulk")) {
    // cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size}: cp-size bytes are written
    // at the shared destination and read at the global source. (commit_group and wait_group
    // access nothing.)
    if (in.operands.size() < 2 || in.operands[0].kind != OperandKind::Address) return out;
    unsigned bytes = in.operands.size() > 2 && in.operands[2].kind == OperandKind::Integer
                         ? static_cast<unsigned>(in.operands[2].value)
                         : 0;
    MemoryAccess dst;
    dst.space = Space::Shared;
    dst.kind = AccessKind::Write;
    dst.addressOperand = 0;
    dst.size = bytes;
    out.push_back(dst);
    a.kind = AccessKind::Read;
    a.space = Space::Global;
    a.addressOperand = 1;
    a.size = bytes;
  } else if (op == "cp" && in.hasModifier(".bulk") && !in.hasModifier(".tensor") && !in.hasModifier(".prefetch") &&
             bulkCopyAccess(in, a)) {
    // (bulkCopyAccess: its global side)
  } else if (op == "cp") {
    a.kind = AccessKind::Read;
    a.uncheckable = "bulk copy (cp.async.bulk / cp.reduce.async.bulk): tensor-map or bulk extent";
    a.addressOperand = 1;
  } else if (op == "wmma" && (in.hasModifier(".load") || in.hasModifier(".store"))) {
    a.kind = in.hasModifier(".store") ? AccessKind::Write : AccessKind::Read;
    a.addressOperand = in.hasModifier(".store") ? 0 : 1;
    if (!fragmentExtent(in, a))
      a.uncheckable = "wmma.load/store: the fragment's footprint depends on layout and stride";
  } else if (op == "ldmatrix" || op == "stmatrix") {
    a = matrixAccess(in, op == "stmatrix");
  } else if (op == "mbarrier") {
    // Every mbarrier operation reads and writes the 8-byte barrier object.
    a.kind = AccessKind::Atomic;
    a.addressOperand = firstAddressOperand(in);
    a.size = 8;
  } else if (op == "multimem" || op == "tensormap" || op == "cp.reduce") {
    a.uncheckable = "multimem / tensormap access";
    a.addressOperand = 0;
  } else {
    return out;
  }
  out.push_back(a);
  for (auto& m : out) {
    if (m.addressOperand >= in.operands.size() || in.operands[m.addressOperand].kind != OperandKind::Address)
      m.uncheckable = "no [address] operand where expected";
    else if (m.uncheckable.empty() && m.size == 0 && !m.extent)
      m.uncheckable = "access size not known statically";
  }
  return out;
}

bool mayNotComeBack(const Instruction& in) {
  const std::string& op = in.opcode;
  return op == "call" || op == "exit" || op == "ret" || op == "trap" || op == "brkpt";
}

size_t dimensionOf(const Operand& o) { return o.extra == ".x" ? 0 : o.extra == ".y" ? 1 : o.extra == ".z" ? 2 : 3; }

void forEachDefinedRegister(const Instruction& in, const std::function<void(const std::string&)>& f) {
  const std::string& op = in.opcode;
  static constexpr std::string_view kNoDestination[] = {
      "st", "red", "bra", "brx", "ret", "exit", "bar", "barrier", "membar", "fence", "prefetch",
      "prefetchu", "trap", "cp", "call", "stmatrix", "setmaxnreg", "griddepcontrol", "pmevent",
      "nanosleep", "brkpt", "sust", "sured", "discard", "applypriority", "multimem", "tensormap",
      "cp.async", "wgmma", "tcgen05", "st.async", "red.async", "mbarrier"};
  for (auto n : kNoDestination)
    if (op == n) {
      // A few of these do write a register: mbarrier.arrive returns a state, wgmma.mma_async
      // accumulates into its first operand, bar.red (__syncthreads_count/and/or) returns the
      // reduction, multimem.ld_reduce and tcgen05.ld the values they read.
      if (!((op == "mbarrier" && !in.operands.empty() && in.operands[0].kind != OperandKind::Address) ||
            (op == "wgmma" && in.hasModifier(".mma_async")) ||
            ((op == "bar" || op == "barrier") && in.hasModifier(".red")) ||
            (op == "multimem" && in.hasModifier(".ld_reduce")) || (op == "tcgen05" && in.hasModifier(".ld"))))
        return;
      break;
    }
  if (op == "wmma" && in.hasModifier(".store")) return;
  if (in.operands.empty()) return;
  const Operand& d = in.operands[0];
  if (d.kind == OperandKind::Name && !d.negated && d.text != "_") f(d.text);
  else if (d.kind == OperandKind::PredicatePair) {
    if (d.text != "_") f(d.text);
    if (d.extra != "_") f(d.extra);
  } else if (d.kind == OperandKind::Vector) {
    for (const auto& e : d.elements)
      if (e.kind == OperandKind::Name && e.text != "_") f(e.text);
  }
}

std::vector<CallArgumentStores> callArgumentStores(const Function& f) {
  std::vector<CallArgumentStores> out;
  std::vector<size_t> scopeStart{0};
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (const auto* b = std::get_if<ScopeBrace>(&f.body[i])) {
      if (b->open) scopeStart.push_back(i);
      else if (scopeStart.size() > 1) scopeStart.pop_back();
      continue;
    }
    const auto* in = std::get_if<Instruction>(&f.body[i]);
    if (!in || in->opcode != "call") continue;
    CallArgumentStores site{i, {}};
    if (const Operand* arguments = callShape(*in).arguments) {
      std::unordered_set<std::string> params;
      for (const auto& a : arguments->elements) params.insert(a.text);
      for (size_t j = scopeStart.back(); j < i; ++j) {
        const auto* st = std::get_if<Instruction>(&f.body[j]);
        if (st && st->opcode == "st" && st->hasModifier(".param") && st->operands.size() > 1 &&
            params.count(st->operands[0].text))
          site.stores.push_back(j);
      }
    }
    out.push_back(std::move(site));
  }
  return out;
}

CallShape callShape(const Instruction& in) {
  CallShape c;
  size_t i = 0;
  if (i < in.operands.size() && in.operands[i].kind == OperandKind::List) ++i;  // return values
  if (i < in.operands.size() && in.operands[i].kind == OperandKind::Name) c.callee = &in.operands[i++];
  if (i < in.operands.size() && in.operands[i].kind == OperandKind::List) c.arguments = &in.operands[i++];
  if (c.callee && i < in.operands.size() && in.operands[i].kind == OperandKind::Name) c.prototype = &in.operands[i];
  return c;
}

}  // namespace cucatch::ptx
