#include "ptx/IR.h"

#include <charconv>

namespace cucatch::ptx {

Operand Operand::name(std::string n, SourceLoc l) {
  Operand o;
  o.kind = OperandKind::Name;
  o.text = std::move(n);
  o.loc = l;
  return o;
}

Operand Operand::integer(int64_t v, SourceLoc l) {
  Operand o;
  o.kind = OperandKind::Integer;
  o.value = v;
  o.text = std::to_string(v);
  o.loc = l;
  return o;
}

Operand Operand::address(std::string base, int64_t offset, SourceLoc l) {
  Operand o;
  o.kind = OperandKind::Address;
  o.text = std::move(base);
  o.value = offset;
  o.loc = l;
  return o;
}

Operand Operand::vector(std::vector<Operand> elems, SourceLoc l) {
  Operand o;
  o.kind = OperandKind::Vector;
  o.elements = std::move(elems);
  o.loc = l;
  return o;
}

namespace {
bool isFundamentalType(std::string_view w) {
  if (w.size() < 2 || w[0] != '.') return false;
  static constexpr std::string_view kTypes[] = {
      ".b8",  ".b16", ".b32", ".b64", ".b128", ".u8",  ".u16", ".u32", ".u64", ".s8",   ".s16",
      ".s32", ".s64", ".f16", ".f16x2", ".f32", ".f64", ".bf16", ".bf16x2", ".pred", ".e4m3",
      ".e5m2", ".tf32", ".texref", ".samplerref", ".surfref"};
  for (auto t : kTypes)
    if (w == t) return true;
  return false;
}
}  // namespace

std::optional<int64_t> VariableDecl::alignment() const {
  for (const auto& q : qualifiers)
    if (q.word == ".align") return q.number;
  return std::nullopt;
}

std::string VariableDecl::type() const {
  for (const auto& q : qualifiers)
    if (isFundamentalType(q.word)) return q.word;
  return {};
}

bool VariableDecl::hasQualifier(std::string_view word) const {
  for (const auto& q : qualifiers)
    if (q.word == word) return true;
  return false;
}

bool Instruction::hasModifier(std::string_view m) const {
  for (const auto& x : modifiers)
    if (x == m) return true;
  return false;
}

std::string Instruction::fullOpcode() const {
  std::string s = opcode;
  for (const auto& m : modifiers) s += m;
  return s;
}

static int versionPart(const std::string& v, bool wantMajor) {
  auto dot = v.find('.');
  std::string_view part = wantMajor ? std::string_view(v).substr(0, dot)
                                    : (dot == std::string::npos ? std::string_view{} : std::string_view(v).substr(dot + 1));
  int x = 0;
  std::from_chars(part.data(), part.data() + part.size(), x);
  return x;
}
int VersionDirective::major() const { return versionPart(version, true); }
int VersionDirective::minor() const { return versionPart(version, false); }

const VersionDirective* Module::version() const {
  for (const auto& i : items)
    if (auto* v = std::get_if<VersionDirective>(&i)) return v;
  return nullptr;
}

const TargetDirective* Module::target() const {
  for (const auto& i : items)
    if (auto* t = std::get_if<TargetDirective>(&i)) return t;
  return nullptr;
}

std::string Module::smTarget() const {
  if (auto* t = target())
    for (const auto& s : t->targets)
      if (s.rfind("sm_", 0) == 0) return s;
  return {};
}

std::vector<Function*> Module::functions() {
  std::vector<Function*> out;
  for (auto& i : items)
    if (auto* f = std::get_if<Function>(&i)) out.push_back(f);
  return out;
}

std::vector<const Function*> Module::functions() const {
  std::vector<const Function*> out;
  for (const auto& i : items)
    if (auto* f = std::get_if<Function>(&i)) out.push_back(f);
  return out;
}

namespace {
void clear(Operand& op) {
  op.loc = op.closeLoc = {};
  for (auto& e : op.elements) clear(e);
}
void clear(ParamList& l) {
  l.open = l.close = {};
  for (auto& p : l.params) p.loc = {};
}
void clear(Instruction& in) {
  in.endLoc = {};
  for (auto& op : in.operands) clear(op);
}
void clear(CallPrototype& p) {
  p.endLoc = {};
  if (p.returns) clear(*p.returns);
  if (p.params) clear(*p.params);
  for (auto& a : p.attributes) a.loc = {};
}
void clear(Function& f) {
  f.nameLoc = f.bodyOpen = f.bodyClose = {};
  if (f.returns) clear(*f.returns);
  if (f.params) clear(*f.params);
  for (auto& a : f.leadingAttributes) a.loc = {};
  for (auto& a : f.attributes) a.loc = {};
  for (auto& s : f.body) makeSynthetic(s);
}
void clear(Section& s) {
  s.open = s.close = {};
  for (auto& e : s.entries) e.loc = {};
}
template <typename T>
void clear(T&) {}
}  // namespace

void makeSynthetic(Statement& s) {
  std::visit([](auto& x) {
    x.loc = {};
    clear(x);
  }, s);
}

void makeSynthetic(TopLevel& t) {
  std::visit([](auto& x) {
    x.loc = {};
    clear(x);
  }, t);
}

SourceLoc locOf(const Statement& s) {
  return std::visit([](const auto& x) { return x.loc; }, s);
}
SourceLoc locOf(const TopLevel& t) {
  return std::visit([](const auto& x) { return x.loc; }, t);
}

}  // namespace cucatch::ptx
