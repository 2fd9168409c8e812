#include "instrument/RelocatableCalls.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_set>

#include "instrument/DeviceHeap.h"
#include "instrument/MetadataParams.h"
#include "ptx/InstrInfo.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

// How a forwarder copies one parameter (or return value): pieces of `bytes` bytes at each
// offset up to `total`, each through a register of its own (a piece's register is the value a
// call argument is made from, which the checks follow).
struct ParamCopy {
  unsigned bytes = 0;
  unsigned total = 0;
};

// nullopt where the declaration is not one a forwarder copies: one name, a fundamental type,
// a scalar or an array of one dimension (a struct passed by value: `.align 8 .b8 p[16]`).
std::optional<ParamCopy> copyOf(const VariableDecl& p) {
  if (p.declarators.size() != 1 || p.declarators[0].dimensions.size() > 1) return std::nullopt;
  for (const auto& q : p.qualifiers)
    if (q.word != ".align" && !typeSize(q.word)) return std::nullopt;
  // (Up to 8 bytes: a piece goes through one register.)
  const unsigned element = typeSize(p.type());
  if (!element || element > 8) return std::nullopt;
  const auto& d = p.declarators[0];
  if (d.dimensions.empty()) return ParamCopy{element, element};
  if (!d.dimensions[0] || d.dimensions[0]->empty()) return std::nullopt;  // unsized: variadic
  unsigned long count = 0;
  try {
    count = std::stoul(*d.dimensions[0]);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const unsigned total = static_cast<unsigned>(count) * element;
  const unsigned align = static_cast<unsigned>(p.alignment().value_or(element));
  unsigned bytes = 8;
  while (bytes > element && (total % bytes || align % bytes)) bytes /= 2;
  return ParamCopy{bytes, total};
}

// A function whose signature a forwarder reproduces: no attributes, every parameter and the
// return value copyable.
bool forwardable(const Function& f) {
  if (f.isEntry || !f.attributes.empty() || !f.leadingAttributes.empty()) return false;
  for (const auto* list : {&f.params, &f.returns})
    if (*list)
      for (const auto& p : (*list)->params)
        if (!copyOf(p)) return false;
  return !f.returns || f.returns->params.size() <= 1;
}

// Whether some parameter is one MetadataParams gives metadata by its type.
bool hasScalar64(const Function& f) {
  return f.params && std::any_of(f.params->params.begin(), f.params->params.end(), isScalar64Param);
}

std::string entryPointName(const std::string& function) { return function + std::string(kMetadataEntrySuffix); }
std::string privateBodyName(const std::string& function) { return function + std::string(kPrivateBodySuffix); }

// One declaration's parameter or return list as a signature: types, alignments, dimensions,
// not names or source places (nvcc's forward declarations sit on other lines).
bool sameSignature(const std::optional<ParamList>& a, const std::optional<ParamList>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->params.size() != b->params.size()) return false;
  for (size_t i = 0; i < a->params.size(); ++i) {
    const VariableDecl &x = a->params[i], &y = b->params[i];
    if (x.qualifiers != y.qualifiers || x.declarators.size() != y.declarators.size()) return false;
    for (size_t k = 0; k < x.declarators.size(); ++k)
      if (x.declarators[k].dimensions != y.declarators[k].dimensions) return false;
  }
  return true;
}

// `declaration` renamed, as the argument of a call (in the call's scope: no linkage).
std::string argumentDeclaration(VariableDecl declaration, const std::string& name) {
  declaration.linkage.clear();
  declaration.declarators[0].name = name;
  declaration.declarators[0].initializer.reset();
  declaration.loc = {};
  return printStatement(Statement{std::move(declaration)});
}

// The ld.param / st.param pairs that copy `from` into `to`, through fresh registers.
std::string copyText(const ParamCopy& c, const std::string& from, const std::string& to,
                     std::map<unsigned, unsigned>& registersUsed) {
  std::string text;
  for (unsigned offset = 0; offset < c.total; offset += c.bytes) {
    const unsigned bits = c.bytes * 8;
    const std::string reg = fmt::format("%fw{}_{}", std::max(bits, 16u), registersUsed[std::max(bits, 16u)]++);
    text += fmt::format("ld.param.b{0} {1}, [{2}+{3}];\nst.param.b{0} [{4}+{3}], {1};\n", bits, reg, from, offset, to);
  }
  return text;
}

// `f` as cucatch's own, placed by the printer wherever it goes (no source lines).
Function synthetic(Function f) {
  TopLevel item = std::move(f);
  makeSynthetic(item);
  return std::get<Function>(std::move(item));
}

// A function with `signature`'s linkage, return value and parameters, named `name`, whose body
// calls `target` with its own arguments and returns what it returns.
Function forwarder(const Function& signature, const std::string& name, std::vector<std::string> linkage,
                   const std::string& target) {
  std::map<unsigned, unsigned> registersUsed;
  std::string call = "{\n";
  std::vector<std::string> arguments;
  if (signature.params)
    for (size_t i = 0; i < signature.params->params.size(); ++i) {
      const VariableDecl& p = signature.params->params[i];
      const std::string argument = fmt::format("fwd_param{}", i);
      call += argumentDeclaration(p, argument) + "\n";
      call += copyText(*copyOf(p), p.declarators[0].name, argument, registersUsed);
      arguments.push_back(argument);
    }
  std::string returned;
  if (signature.returns && !signature.returns->params.empty()) {
    const VariableDecl& r = signature.returns->params[0];
    call += argumentDeclaration(r, "fwd_retval") + "\n";
    returned = copyText(*copyOf(r), "fwd_retval", r.declarators[0].name, registersUsed);
  }
  call += fmt::format("call {}{}, ({});\n", returned.empty() ? "" : "(fwd_retval), ", target, fmt::join(arguments, ", "));
  call += returned + "}\nret;\n";
  std::string registers;
  for (const auto& [bits, count] : registersUsed) registers += fmt::format(".reg .b{0} %fw{0}_<{1}>;\n", bits, count);

  Function f;
  f.linkage = std::move(linkage);
  f.returns = signature.returns;
  f.name = name;
  f.params = signature.params;
  f.hasBody = true;
  f.body = parseSyntheticStatements(registers + call);
  return synthetic(std::move(f));
}

// `f`'s signature as a declaration named `name` (no body).
Function declarationOf(const Function& f, const std::string& name) {
  Function d = f;
  d.name = name;
  d.hasBody = false;
  d.body.clear();
  return synthetic(std::move(d));
}

bool hasLinkage(const Function& f, const char* linkage) {
  return std::find(f.linkage.begin(), f.linkage.end(), linkage) != f.linkage.end();
}

// The declaration of `f`'s private body: its signature, no linkage.
Function privateDeclarationOf(const Function& f) {
  Function d = declarationOf(f, privateBodyName(f.name));
  d.linkage.clear();
  return d;
}

}  // namespace

MetadataEntryPoints addMetadataEntryPoints(Module& module, UnitResult& unit) {
  MetadataEntryPoints out;
  std::unordered_set<std::string> defined;
  std::map<std::string, const Function*> byName;  // (a declaration's signature is its definition's: below)
  for (const Function* f : module.functions()) {
    if (f->hasBody) defined.insert(f->name);
    byName[f->name] = f;
  }
  // The functions this unit calls directly (the callee of a call, not through a pointer).
  std::unordered_set<std::string> calledDirectly;
  for (const Function* caller : module.functions())
    if (caller->hasBody)
      for (const auto& item : caller->body)
        if (auto* in = std::get_if<Instruction>(&item); in && in->opcode == "call")
          if (CallShape c = callShape(*in); c.callee && !c.prototype) calledDirectly.insert(c.callee->text);
  // Which functions: this unit's own that other units may call (.visible: its body becomes
  // private, reached from F and F__cc_meta), the .weak ones it defines and calls (a private
  // copy; one only other units or function pointers reach, a virtual function in a vtable, is
  // left as it is: a copy would be code no call reaches), and other units' it only declares (a
  // .weak entry point of its own for where theirs is missing).
  std::set<std::string> own, copied;
  std::map<std::string, std::string> entryOf;  // function -> its entry point (F__cc_meta)
  for (const Function* f : module.functions()) {
    const bool cucatchs = f->name.starts_with("__cucatch") || f->name != sourceFunctionName(*f);
    if (cucatchs || isCudaSystemFunction(f->name)) continue;
    const bool weak = hasLinkage(*f, ".weak");
    if (f->hasBody && weak) {
      if (!f->isEntry && calledDirectly.count(f->name)) copied.insert(f->name);
    } else if (f->hasBody && hasLinkage(*f, ".visible") && forwardable(*f)) {
      own.insert(f->name);
      if (hasScalar64(*f)) entryOf[f->name] = entryPointName(f->name);
    } else if (!f->hasBody && !defined.count(f->name) && hasLinkage(*f, ".extern") && forwardable(*f) &&
               hasScalar64(*f)) {
      entryOf[f->name] = entryPointName(f->name);
    }
  }
  // Left alone: a function declared twice with signatures that differ, and one whose new names
  // the module uses already.
  auto leaveAlone = [&](const std::string& name) {
    own.erase(name);
    copied.erase(name);
    entryOf.erase(name);
  };
  for (const Function* f : module.functions()) {
    if (!own.count(f->name) && !copied.count(f->name) && !entryOf.count(f->name)) continue;
    for (const Function* g : module.functions())
      if (g->name == entryPointName(f->name) || g->name == privateBodyName(f->name) ||
          (g->name == f->name && (!sameSignature(g->params, f->params) || !sameSignature(g->returns, f->returns)))) {
        leaveAlone(f->name);
        break;
      }
  }
  if (own.empty() && copied.empty() && entryOf.empty()) return out;

  // The calls: of this unit's functions, to their private bodies; of another unit's, to its entry
  // point, where each 64-bit argument is stored by one st.param (the rule the entry point's
  // parameters follow).
  std::set<std::string> called;
  for (Function* caller : module.functions()) {
    if (!caller->hasBody) continue;
    for (size_t i = 0; i < caller->body.size(); ++i) {
      auto* in = std::get_if<Instruction>(&caller->body[i]);
      if (!in || in->opcode != "call") continue;
      CallShape c = callShape(*in);
      if (!c.callee || c.prototype) continue;
      const std::string callee = c.callee->text;
      if (own.count(callee) || copied.count(callee)) {
        const_cast<Operand*>(c.callee)->text = privateBodyName(callee);
      } else if (entryOf.count(callee) && passesByType(*caller, i, byName.at(callee)->params)) {
        called.insert(callee);
        const_cast<Operand*>(c.callee)->text = entryOf.at(callee);
      }
    }
  }

  // The bodies, entry points and forwarders, where the functions are; the private body declared
  // before the function's first declaration, for the calls before its definition (its own too).
  std::vector<TopLevel> items;
  items.reserve(module.items.size() + 3 * (own.size() + copied.size()) + entryOf.size());
  std::set<std::string> declared, placed;
  for (auto& item : module.items) {
    auto* f = std::get_if<Function>(&item);
    const std::string name = f ? f->name : std::string();
    const bool mine = f && (own.count(name) || copied.count(name));
    if (mine && declared.insert(name).second) items.push_back(privateDeclarationOf(*f));
    if (mine && f->hasBody && own.count(name)) {
      // The body becomes private; F and its entry point forward to it.
      Function wrapper = forwarder(*f, name, f->linkage, privateBodyName(name));
      std::optional<Function> entry;
      if (entryOf.count(name)) entry = forwarder(*f, entryOf.at(name), {".visible"}, privateBodyName(name));
      f->name = privateBodyName(name);
      f->linkage.clear();
      out.forwarders.insert(name);
      items.push_back(std::move(item));
      items.push_back(std::move(wrapper));
      ++unit.stats.privateBodies;
      if (entry) {
        items.push_back(std::move(*entry));
        out.names.insert(entryOf.at(name));
        out.forwarders.insert(entryOf.at(name));
        ++unit.stats.metadataEntryPoints;
      }
    } else if (mine && f->hasBody) {
      // A .weak function: kept for other units, and copied for this unit's calls.
      Function copy = *f;
      copy.name = privateBodyName(name);
      copy.linkage.clear();  // (its statements keep their places, as a launch twin's do)
      items.push_back(std::move(item));
      items.push_back(std::move(copy));
      ++unit.stats.privateBodies;
    } else if (!mine && f && entryOf.count(name) && !defined.count(name)) {
      // Another unit's function: a .weak entry point that forwards to it, after its first
      // declaration, where this unit calls it.
      items.push_back(std::move(item));
      if (called.count(name) && placed.insert(name).second) {
        items.push_back(forwarder(std::get<Function>(items.back()), entryOf.at(name), {".weak"}, name));
        out.names.insert(entryOf.at(name));
        out.forwarders.insert(entryOf.at(name));
        ++unit.stats.metadataForwarders;
      }
    } else {
      items.push_back(std::move(item));
    }
  }
  module.items = std::move(items);
  return out;
}

}  // namespace cucatch::instrument
