#include "instrument/LaunchVersions.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "ptx/Parser.h"
#include "ptx/Printer.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {
constexpr const char* kCopySuffix = "__cc_fast";

void renameOperand(Operand& o, const std::unordered_map<std::string, std::string>& renamed) {
  if (o.kind == OperandKind::Name) {
    if (auto it = renamed.find(o.text); it != renamed.end()) o.text = it->second;
  }
  for (auto& e : o.elements) renameOperand(e, renamed);
}

// Statement `s` as text, the labels it defines or names renamed by `renamed`.
std::string printRenamed(Statement s, const std::unordered_map<std::string, std::string>& renamed) {
  if (auto* in = std::get_if<Instruction>(&s)) {
    for (auto& o : in->operands) renameOperand(o, renamed);
  } else if (auto* l = std::get_if<Label>(&s)) {
    if (auto it = renamed.find(l->name); it != renamed.end()) l->name = it->second;
  } else if (auto* t = std::get_if<TargetList>(&s)) {
    for (auto& target : t->targets)
      if (auto it = renamed.find(target); it != renamed.end()) target = it->second;
  }
  return printStatement(s) + "\n";
}
}  // namespace

bool versionable(const Function& f) {
  if (!f.isEntry) return false;
  int depth = 0;
  for (const Statement& s : f.body) {
    if (const auto* b = std::get_if<ScopeBrace>(&s)) depth += b->open ? 1 : -1;
    if (const auto* d = std::get_if<VariableDecl>(&s); d && depth > 0 && d->space != ".reg" && d->space != ".param")
      return false;
  }
  return true;
}

void addLaunchVersion(Function& f, const std::string& fastLabel, const LaunchVersion& v) {
  size_t from = f.body.size();
  for (size_t i = 0; i < f.body.size(); ++i) {
    const auto* in = std::get_if<Instruction>(&f.body[i]);
    if (in && in->opcode == "bra" && in->guard && !in->operands.empty() && in->operands[0].text == fastLabel) {
      from = i + 1;
      break;
    }
  }
  if (from == f.body.size()) throw std::logic_error("addLaunchVersion: no branch to " + fastLabel);

  std::unordered_set<std::string> labels;
  for (const Statement& s : f.body)
    if (const auto* l = std::get_if<Label>(&s)) labels.insert(l->name);
  // A label that names a call's prototype or its targets (`prototype_0 : .callprototype ...`)
  // keeps its name: nvcc declares it in the call's own scope, where the copy's is another (ptxas
  // takes the same name in sibling scopes), and the module's metadata parameters are added to
  // prototypes by name (MetadataParams.h). One at the function's scope is not copied (the copy
  // sees it).
  auto namesCallShape = [&](size_t i) {
    if (!std::holds_alternative<Label>(f.body[i]) || i + 1 >= f.body.size()) return false;
    const auto* targets = std::get_if<TargetList>(&f.body[i + 1]);
    return std::holds_alternative<CallPrototype>(f.body[i + 1]) || (targets && targets->directive == ".calltargets");
  };
  std::unordered_map<std::string, std::string> renamed;
  for (size_t i = from; i < f.body.size(); ++i)
    if (const auto* l = std::get_if<Label>(&f.body[i]); l && !namesCallShape(i)) {
      std::string to = l->name + kCopySuffix;
      if (labels.count(to)) throw std::runtime_error("function " + f.name + " already defines label " + to);
      renamed[l->name] = to;
    }

  std::string copy = fastLabel + ":\n";
  int depth = 0;
  for (size_t i = from; i < f.body.size(); ++i) {
    const Statement& s = f.body[i];
    if (const auto* b = std::get_if<ScopeBrace>(&s)) depth += b->open ? 1 : -1;
    if (depth == 0 && (std::holds_alternative<VariableDecl>(s) || namesCallShape(i) ||
                       (i > from && namesCallShape(i - 1))))
      continue;
    const auto* in = std::get_if<Instruction>(&s);
    if (in && in->opcode == "bra" && in->guard && !in->operands.empty() && v.provenBranches.count(in->operands[0].text))
      continue;
    copy += printRenamed(s, renamed);
  }
  for (auto& s : parseSyntheticStatements(copy)) f.body.push_back(std::move(s));
}

size_t addRegionVersions(Function& f, const std::vector<RegionVersion>& versions) {
  size_t copied = 0;
  for (size_t k = 0; k < versions.size(); ++k) {
    const RegionVersion& v = versions[k];
    size_t test = f.body.size(), end = f.body.size();
    for (size_t i = 0; i < f.body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&f.body[i]);
      if (in && in->opcode == "bra" && !in->operands.empty() && in->operands[0].text == v.checkedLabel && test == f.body.size())
        test = i;
      if (const auto* l = std::get_if<Label>(&f.body[i]); l && l->name == v.exitLabel) end = i;
    }
    if (test >= end || end == f.body.size()) throw std::logic_error("addRegionVersions: no region at " + v.checkedLabel);
    size_t from = test + 1;
    std::unordered_set<std::string> labels, inside;
    for (size_t i = 0; i < f.body.size(); ++i)
      if (const auto* l = std::get_if<Label>(&f.body[i])) (i >= from && i < end ? inside : labels).insert(l->name);
    // Entered only at its start: otherwise a thread could come into the region in place after
    // its test failed, past checks it must run.
    bool enteredElsewhere = false;
    for (size_t i = 0; i < f.body.size() && !enteredElsewhere; ++i) {
      if (i >= from && i < end) continue;
      if (const auto* in = std::get_if<Instruction>(&f.body[i])) {
        auto names = [&](auto&& self, const Operand& o) -> bool {
          if (o.kind == OperandKind::Name && inside.count(o.text)) return true;
          return std::any_of(o.elements.begin(), o.elements.end(), [&](const Operand& e) { return self(self, e); });
        };
        for (const auto& o : in->operands) enteredElsewhere |= names(names, o);
      } else if (const auto* t = std::get_if<TargetList>(&f.body[i])) {
        for (const auto& target : t->targets) enteredElsewhere |= inside.count(target) != 0;
      }
    }
    if (enteredElsewhere) {
      f.body.erase(f.body.begin() + static_cast<std::ptrdiff_t>(test));
      continue;
    }
    std::unordered_map<std::string, std::string> renamed;
    std::string suffix = "__cc_r" + std::to_string(k);
    for (const auto& l : inside) {
      if (labels.count(l + suffix)) throw std::runtime_error("function " + f.name + " already defines label " + l + suffix);
      renamed[l] = l + suffix;
    }
    std::string copy = v.checkedLabel + ":\n";
    for (size_t i = from; i < end; ++i) copy += printRenamed(f.body[i], renamed);
    copy += "bra " + v.exitLabel + ";\n";
    for (size_t i = end; i-- > from;) {
      const auto* in = std::get_if<Instruction>(&f.body[i]);
      if (in && in->opcode == "bra" && in->guard && !in->operands.empty() && v.uncheckedBranches.count(in->operands[0].text))
        f.body.erase(f.body.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (auto& s : parseSyntheticStatements(copy)) f.body.push_back(std::move(s));
    ++copied;
  }
  return copied;
}

}  // namespace cucatch::instrument
