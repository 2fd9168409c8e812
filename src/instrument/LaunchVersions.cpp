#include "instrument/LaunchVersions.h"

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
    Statement s = f.body[i];
    if (const auto* b = std::get_if<ScopeBrace>(&s)) depth += b->open ? 1 : -1;
    if (depth == 0 && (std::holds_alternative<VariableDecl>(s) || namesCallShape(i) ||
                       (i > from && namesCallShape(i - 1))))
      continue;
    if (auto* in = std::get_if<Instruction>(&s)) {
      if (in->opcode == "bra" && in->guard && !in->operands.empty() && v.provenBranches.count(in->operands[0].text))
        continue;
      for (auto& o : in->operands) renameOperand(o, renamed);
    } else if (auto* l = std::get_if<Label>(&s)) {
      if (auto it = renamed.find(l->name); it != renamed.end()) l->name = it->second;
    } else if (auto* t = std::get_if<TargetList>(&s)) {
      for (auto& target : t->targets)
        if (auto it = renamed.find(target); it != renamed.end()) target = it->second;
    }
    copy += printStatement(s) + "\n";
  }
  for (auto& s : parseSyntheticStatements(copy)) f.body.push_back(std::move(s));
}

}  // namespace cucatch::instrument
