#include "instrument/MetadataParams.h"

#include <algorithm>
#include <functional>
#include <regex>
#include <set>
#include <unordered_set>

#include "analysis/CFG.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

constexpr const char* kSuffixes[] = {"__cc_b", "__cc_s", "__cc_m"};

}  // namespace

bool callableFromElsewhere(const Function& f, bool wholeProgram) {
  return std::any_of(f.linkage.begin(), f.linkage.end(), [&](const std::string& l) {
    return (l == ".visible" && !wholeProgram) || l == ".weak" || l == ".extern" || l == ".common";
  });
}

bool isScalar64Param(const VariableDecl& p) {
  if (p.declarators.size() != 1 || !p.declarators[0].dimensions.empty()) return false;
  for (const auto& q : p.qualifiers)
    if (q.word == ".ptr") return false;
  const std::string t = p.type();
  return t == ".b64" || t == ".u64" || t == ".s64";
}

std::unordered_set<std::string> namesUsedOtherwise(const Module& module) {
  std::unordered_set<std::string> used;
  std::function<void(const Operand&)> visit = [&](const Operand& o) {
    if (o.kind == OperandKind::Name || o.kind == OperandKind::Address) used.insert(o.text);
    for (const auto& e : o.elements) visit(e);
  };
  static const std::regex identifier(R"([A-Za-z_$%][A-Za-z0-9_$]*)");
  std::function<void(const Initializer&)> visitInit = [&](const Initializer& i) {
    for (auto it = std::sregex_iterator(i.expression.begin(), i.expression.end(), identifier);
         it != std::sregex_iterator(); ++it)
      used.insert(it->str());
    for (const auto& e : i.list) visitInit(e);
  };
  for (const auto& item : module.items) {
    if (const auto* v = std::get_if<VariableDecl>(&item)) {
      for (const auto& d : v->declarators)
        if (d.initializer) visitInit(*d.initializer);
    } else if (const auto* a = std::get_if<AliasDirective>(&item)) {
      used.insert(a->alias);
      used.insert(a->aliasee);
    } else if (const auto* f = std::get_if<Function>(&item)) {
      for (const auto& s : f->body) {
        if (const auto* t = std::get_if<TargetList>(&s)) {
          for (const auto& n : t->targets) used.insert(n);
          continue;
        }
        const auto* in = std::get_if<Instruction>(&s);
        if (!in) continue;
        const Operand* callee = in->opcode == "call" ? callShape(*in).callee : nullptr;
        for (const auto& o : in->operands)
          if (&o != callee) visit(o);
      }
    }
  }
  return used;
}

bool hasUnsizedArray(const std::optional<ParamList>& params) {
  if (!params) return false;
  for (const auto& p : params->params)
    for (const auto& d : p.declarators)
      for (const auto& dim : d.dimensions)
        if (!dim || dim->empty()) return true;
  return false;
}

namespace {

size_t parameterCountOf(const std::optional<ParamList>& params) { return params ? params->params.size() : 0; }

// Every 64-bit scalar parameter of a list, in order.
std::vector<MetadataParams::Param> scalar64Params(const std::optional<ParamList>& params) {
  std::vector<MetadataParams::Param> out;
  if (!params) return out;
  for (size_t i = 0; i < params->params.size(); ++i)
    if (isScalar64Param(params->params[i])) out.push_back({i, params->params[i].declarators[0].name});
  return out;
}

// The .callprototype that `label` names in `f`'s body (`label: .callprototype ...`).
const CallPrototype* prototypeOf(const Function& f, const std::string& label) {
  for (size_t i = 0; i + 1 < f.body.size(); ++i)
    if (const auto* l = std::get_if<Label>(&f.body[i]); l && l->name == label)
      return std::get_if<CallPrototype>(&f.body[i + 1]);
  return nullptr;
}

// Every call of `caller` at `statement` stores each of `params`'s arguments with one plain
// st.param, and has as many arguments as the callee has parameters.
bool passesRegularly(const Function& caller, size_t statement, const std::vector<MetadataParams::Param>& params,
                     size_t parameterCount) {
  CallShape c = callShape(std::get<Instruction>(caller.body[statement]));
  if (!c.arguments || c.arguments->elements.size() != parameterCount) return false;
  for (const auto& p : params)
    if (!argumentStore(caller, statement, c.arguments->elements[p.position].text)) return false;
  return true;
}

}  // namespace

bool passesByType(const Function& caller, size_t statement, const std::optional<ParamList>& calleeParams) {
  return passesRegularly(caller, statement, scalar64Params(calleeParams), parameterCountOf(calleeParams));
}

namespace {

// Functions reached through pointers, in a module compiled whole (MetadataParams.h): every 64-bit
// scalar parameter of each address-taken function and of each indirect call's prototype gets
// metadata, or, where one of them or one call cannot follow that rule, nothing does.
void addIndirectCalls(const Module& module, const std::unordered_set<std::string>& usedOtherwise,
                      MetadataParams& out) {
  std::unordered_set<std::string> defined;
  for (const Function* f : module.functions())
    if (f->hasBody) defined.insert(f->name);
  std::map<std::string, std::vector<MetadataParams::Param>> functions;
  std::map<std::string, size_t> parameterCount;
  for (const Function* f : module.functions()) {
    // A kernel's address is taken for a launch from the device (dynamic parallelism), never for a call.
    if (f->isEntry || !usedOtherwise.count(f->name)) continue;
    if (!defined.count(f->name) || callableFromElsewhere(*f, true) || hasUnsizedArray(f->params)) return;
    parameterCount[f->name] = parameterCountOf(f->params);
    if (auto params = scalar64Params(f->params); !params.empty()) functions[f->name] = std::move(params);
  }
  std::map<std::pair<std::string, std::string>, std::vector<MetadataParams::Param>> prototypes;
  for (const Function* caller : module.functions()) {
    if (!caller->hasBody) continue;
    for (size_t i = 0; i < caller->body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&caller->body[i]);
      if (!in || in->opcode != "call") continue;
      if (const Operand* label = callShape(*in).prototype) {
        const CallPrototype* p = prototypeOf(*caller, label->text);
        if (!p || hasUnsizedArray(p->params)) return;
        std::vector<MetadataParams::Param> params = scalar64Params(p->params);
        if (params.empty()) continue;
        if (!passesByType(*caller, i, p->params)) return;
        prototypes[{caller->name, label->text}] = std::move(params);
      } else if (const Operand* callee = callShape(*in).callee; callee && functions.count(callee->text)) {
        if (!passesRegularly(*caller, i, functions.at(callee->text), parameterCount.at(callee->text))) return;
      }
    }
  }
  out.byFunction.merge(functions);
  out.byPrototype = std::move(prototypes);
}

// Appends base, size and metadata word parameters named `names` to a parameter list.
void appendMetadataParams(ParamList& list, const std::vector<std::string>& names) {
  const char* types[] = {".b64", ".b64", ".b32"};
  for (size_t k = 0; k < 3; ++k) {
    VariableDecl d;
    d.space = ".param";
    d.qualifiers.push_back(DeclQualifier{types[k], std::nullopt, ""});
    d.declarators.push_back(Declarator{names[k], std::nullopt, {}, std::nullopt});
    list.params.push_back(std::move(d));
  }
}

}  // namespace

std::vector<MetadataParams::Param> pointerParams(const Function& f, const SymbolTable& moduleSymbols) {
  if (!f.params || std::none_of(f.params->params.begin(), f.params->params.end(), isScalar64Param)) return {};
  CFG cfg(f);
  SymbolTable symbols = functionSymbols(f, moduleSymbols);
  return pointerParams(f, PointerAnalysis(f, cfg, symbols));
}

std::vector<MetadataParams::Param> pointerParams(const Function& f, const PointerAnalysis& pa) {
  if (!f.params) return {};
  std::unordered_set<std::string> scalar64;
  for (const auto& p : f.params->params)
    if (isScalar64Param(p)) scalar64.insert(p.declarators[0].name);
  if (scalar64.empty()) return {};
  std::set<std::string> used;
  auto use = [&](const PointerDef& d) {
    std::optional<ParamSlot> slot = paramSlotRead(std::get<Instruction>(f.body[d.statement]));
    if (slot && slot->offset == 0 && scalar64.count(slot->name)) used.insert(slot->name);
  };
  for (const auto& d : pa.defs()) {
    if (d.kind == DefKind::Base && d.origin == BaseOrigin::Parameter && pa.relevant().count(d.reg)) use(d);
    // A pointer the function converts to a shared address itself (SharedChecks checks it
    // against the bounds its callers pass).
    if (std::optional<size_t> parameter = pa.sharedAddressOfParameter(f, d)) use(pa.defs()[*parameter]);
  }
  std::vector<MetadataParams::Param> out;
  for (size_t i = 0; i < f.params->params.size(); ++i) {
    const auto& p = f.params->params[i];
    if (isScalar64Param(p) && used.count(p.declarators[0].name)) out.push_back({i, p.declarators[0].name});
  }
  return out;
}

std::vector<std::string> MetadataParams::of(const std::string& function, const std::string& param) const {
  auto it = byFunction.find(function);
  if (it == byFunction.end() ||
      std::none_of(it->second.begin(), it->second.end(), [&](const Param& p) { return p.name == param; }))
    return {};
  return {param + kSuffixes[0], param + kSuffixes[1], param + kSuffixes[2]};
}

const std::vector<MetadataParams::Param>* MetadataParams::passedBy(const std::string& caller,
                                                                  const Instruction& call) const {
  if (const Operand* label = callShape(call).prototype) {
    auto it = byPrototype.find({caller, label->text});
    return it == byPrototype.end() ? nullptr : &it->second;
  }
  const Operand* callee = callShape(call).callee;
  auto it = callee ? byFunction.find(callee->text) : byFunction.end();
  return it == byFunction.end() ? nullptr : &it->second;
}

std::optional<size_t> argumentStore(const Function& caller, size_t callStatement, const std::string& argument) {
  std::optional<size_t> found;
  for (size_t j = callStatement; j-- > 0;) {
    if (const auto* b = std::get_if<ScopeBrace>(&caller.body[j]); b && b->open) break;
    const auto* in = std::get_if<Instruction>(&caller.body[j]);
    if (!in || in->opcode != "st" || !in->hasModifier(".param") || in->operands.size() != 2) continue;
    const Operand& address = in->operands[0];
    if (address.kind != OperandKind::Address || address.text != argument) continue;
    if (found || address.value != 0 || in->hasModifier(".v2") || in->hasModifier(".v4") ||
        in->operands[1].kind == OperandKind::Vector)
      return std::nullopt;
    found = j;
  }
  return found;
}

MetadataParams metadataParamsOf(const Module& module, const SymbolTable& moduleSymbols, bool wholeProgram,
                                const std::set<std::string>& byType) {
  MetadataParams out;
  std::unordered_set<std::string> declaredWithLinkage;
  for (const Function* f : module.functions())
    if (callableFromElsewhere(*f, wholeProgram) || f->isEntry) declaredWithLinkage.insert(f->name);
  const std::unordered_set<std::string> usedOtherwise = namesUsedOtherwise(module);
  std::map<std::string, std::vector<MetadataParams::Param>> candidates;
  std::map<std::string, size_t> parameterCount;
  for (const Function* f : module.functions()) {
    if (!f->hasBody || declaredWithLinkage.count(f->name) || usedOtherwise.count(f->name) ||
        hasUnsizedArray(f->params))
      continue;
    std::vector<MetadataParams::Param> params = pointerParams(*f, moduleSymbols);
    if (params.empty()) continue;
    candidates[f->name] = std::move(params);
    parameterCount[f->name] = parameterCountOf(f->params);
  }
  // Every call of a candidate must store each selected argument with one plain st.param.
  for (const Function* caller : module.functions()) {
    if (!caller->hasBody) continue;
    for (size_t i = 0; i < caller->body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&caller->body[i]);
      if (!in || in->opcode != "call" || callShape(*in).prototype) continue;
      const Operand* callee = callShape(*in).callee;
      if (!callee || !candidates.count(callee->text)) continue;
      if (!passesRegularly(*caller, i, candidates.at(callee->text), parameterCount.at(callee->text)))
        candidates.erase(callee->text);
    }
  }
  out.byFunction = std::move(candidates);
  for (const Function* f : module.functions())
    if (byType.count(f->name))
      if (auto params = scalar64Params(f->params); !params.empty()) out.byFunction[f->name] = std::move(params);
  if (wholeProgram) addIndirectCalls(module, usedOtherwise, out);
  return out;
}

void addMetadataParams(Module& module, const MetadataParams& params) {
  for (Function* f : module.functions()) {
    auto it = params.byFunction.find(f->name);
    if (it != params.byFunction.end() && f->params)
      for (const auto& p : it->second) appendMetadataParams(*f->params, params.of(f->name, p.name));
    if (params.byPrototype.empty() || !f->hasBody) continue;
    for (size_t i = 0; i + 1 < f->body.size(); ++i) {
      const auto* label = std::get_if<Label>(&f->body[i]);
      auto* prototype = std::get_if<CallPrototype>(&f->body[i + 1]);
      if (!label || !prototype || !prototype->params) continue;
      auto selected = params.byPrototype.find({f->name, label->name});
      if (selected == params.byPrototype.end()) continue;
      for (size_t k = 0; k < selected->second.size(); ++k) appendMetadataParams(*prototype->params, {"_", "_", "_"});
    }
  }
}

}  // namespace cucatch::instrument
