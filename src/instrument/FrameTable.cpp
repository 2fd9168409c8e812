#include "instrument/FrameTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <unordered_set>

#include "instrument/BodyEdit.h"
#include "instrument/MetadataParams.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

constexpr const char* kTableVariable = "__cc_frame_table";
constexpr const char* kBlockSize = "%__cc_fts";

// The callee of `s` where it is a direct call with an argument list.
const Operand* directCallee(const Statement& s) {
  const auto* in = std::get_if<Instruction>(&s);
  if (!in || in->opcode != "call") return nullptr;
  CallShape c = callShape(*in);
  return c.prototype ? nullptr : c.callee;
}

// Whether device function `f` takes the address of one of its own parameters or return values
// (`mov.u64 %rd, f_param_0`: a local address, of memory the table does not record). Reading and
// writing them (`ld.param [f_param_0]`) does not.
bool takesParameterAddress(const Function& f) {
  if (f.isEntry) return false;
  std::unordered_set<std::string> names;
  for (const auto* list : {&f.params, &f.returns})
    if (*list)
      for (const auto& p : (*list)->params)
        for (const auto& d : p.declarators) names.insert(d.name);
  // A name, or a constant expression's symbols (`f_param_0+8`), in any operand but the address
  // an ld or st reads or writes.
  static const std::regex identifier(R"([A-Za-z_$%][A-Za-z0-9_$]*)");
  std::function<bool(const Operand&, bool)> mentions = [&](const Operand& o, bool access) {
    if (o.kind == OperandKind::Address && access) return false;
    if (o.kind == OperandKind::Name || o.kind == OperandKind::Address || o.kind == OperandKind::Expression)
      for (auto it = std::sregex_iterator(o.text.begin(), o.text.end(), identifier); it != std::sregex_iterator(); ++it)
        if (names.count(it->str())) return true;
    return std::any_of(o.elements.begin(), o.elements.end(), [&](const Operand& e) { return mentions(e, false); });
  };
  for (const auto& s : f.body) {
    const auto* in = std::get_if<Instruction>(&s);
    if (!in) continue;
    const bool access = in->opcode == "ld" || in->opcode == "st";
    for (const auto& o : in->operands)
      if (mentions(o, access)) return true;
  }
  return false;
}

// A `.local` variable declared where a function's entry cannot name it: in a nested scope, or
// after its first instruction (PTX of other front ends; nvcc declares its depot first).
bool hasLocalDeclaredLater(const Function& f) {
  bool leading = true;
  for (const auto& s : f.body) {
    if (const auto* v = std::get_if<VariableDecl>(&s)) {
      if (!leading && v->space == ".local") return true;
    } else {
      leading = false;
    }
  }
  return false;
}

}  // namespace

FrameTable frameTableOf(const Module& module, bool wholeProgram) {
  FrameTable out;
  for (const Function* f : module.functions()) {
    if (!f->hasBody) continue;
    if (takesParameterAddress(*f)) {
      out.off = fmt::format("device function {} takes the address of its own parameter", f->name);
      return out;
    }
    if (hasLocalDeclaredLater(*f)) {
      out.off = fmt::format("{} declares a local variable in a nested scope or after its first instruction", f->name);
      return out;
    }
    for (const auto& s : f->body) {
      const auto* in = std::get_if<Instruction>(&s);
      if (in && in->opcode == "alloca" && !in->hasModifier(".u64")) {
        out.off = fmt::format("{} makes a 32-bit alloca", f->name);
        return out;
      }
      // Blocks an alloca made, freed before the function returns: the table would keep them.
      if (in && in->opcode == "stackrestore") {
        out.off = fmt::format("{} frees alloca'd blocks with stackrestore", f->name);
        return out;
      }
    }
  }
  const std::unordered_set<std::string> usedOtherwise = namesUsedOtherwise(module);
  for (const Function* f : module.functions())
    if (f->hasBody && !f->isEntry && !callableFromElsewhere(*f, wholeProgram) && !usedOtherwise.count(f->name) &&
        !hasUnsizedArray(f->params))
      out.eligible.insert(f->name);
  // Every call must have an argument list to add the table to.
  for (const Function* f : module.functions())
    for (const auto& s : f->body)
      if (const Operand* callee = directCallee(s); callee && !callShape(std::get<Instruction>(s)).arguments)
        out.eligible.erase(callee->text);
  return out;
}

bool callsEligible(const Function& f, const FrameTable& table) {
  return std::any_of(f.body.begin(), f.body.end(), [&](const Statement& s) {
    const Operand* callee = directCallee(s);
    return callee && table.mayTake(callee->text);
  });
}

FrameTableUse frameTableUse(const Module& module, const FrameTable& table, const std::set<std::string>& lookups) {
  // The eligible functions each eligible function calls.
  std::map<std::string, std::set<std::string>> callees;
  for (const Function* f : module.functions()) {
    if (!f->hasBody || !table.mayTake(f->name)) continue;
    auto& mine = callees[f->name];
    for (const auto& s : f->body)
      if (const Operand* callee = directCallee(s); callee && table.mayTake(callee->text)) mine.insert(callee->text);
  }
  // The lookups and their callers, transitively.
  std::set<std::string> callers;
  for (const auto& f : lookups)
    if (table.mayTake(f)) callers.insert(f);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [f, called] : callees)
      if (!callers.count(f) && std::any_of(called.begin(), called.end(), [&](const std::string& c) { return callers.count(c); }))
        grew = callers.insert(f).second;
  }
  // And every eligible function the kernels that make the table call, transitively: a stale
  // pointer a lookup meets points into the frame of one that returned, and recorded, that frame
  // is the one the report names (not an older entry the table holds there).
  std::set<std::string> takers = callers, kernels;
  std::vector<std::string> work(callers.begin(), callers.end());
  for (const Function* k : module.functions()) {
    if (!k->isEntry || !k->hasBody || !table.off.empty()) continue;
    bool makes = lookups.count(k->name) != 0;
    for (const auto& s : k->body)
      if (const Operand* callee = directCallee(s); callee && callers.count(callee->text)) makes = true;
    if (!makes) continue;
    kernels.insert(k->name);
    for (const auto& t : k->body)
      if (const Operand* c = directCallee(t); c && table.mayTake(c->text) && takers.insert(c->text).second)
        work.push_back(c->text);
  }
  while (!work.empty()) {
    std::string f = std::move(work.back());
    work.pop_back();
    if (auto it = callees.find(f); it != callees.end())
      for (const auto& c : it->second)
        if (takers.insert(c).second) work.push_back(c);
  }
  return FrameTableUse{std::move(callers), std::move(kernels), std::move(takers)};
}

void addFrameTable(Module& module, const FrameTable& table, const FrameTableUse& use,
                   const std::set<std::string>& taggers, const analysis::SymbolTable& moduleSymbols, UnitResult& unit) {
  if (!table.off.empty()) {
    unit.stats.frameTableOff = table.off;
    return;
  }
  auto takes = [&](const std::string& f) { return use.takers.count(f) != 0; };
  const FrameTableRegs regs;
  struct Pushed {
    const Function* function;
    std::string symbol;
    uint64_t bytes;
    uint8_t object;
  };
  std::vector<Pushed> frames;
  for (Function* f : module.functions()) {
    if (takes(f->name)) {
      // Definitions and declarations alike.
      if (!f->params) f->params = ParamList{};
      VariableDecl d;
      d.space = ".param";
      d.qualifiers.push_back(DeclQualifier{".b64", std::nullopt, ""});
      d.declarators.push_back(Declarator{kFrameTableParameter, std::nullopt, {}, std::nullopt});
      f->params->params.push_back(std::move(d));
    }
    if (!f->hasBody) continue;
    const bool has = takes(f->name) || use.kernels.count(f->name) != 0;
    BodyEdits edits;
    // Each call of a taker passes the table, or 0 from a function without one.
    for (size_t i = 0; i < f->body.size(); ++i) {
      const Operand* callee = directCallee(f->body[i]);
      if (!callee || !takes(callee->text)) continue;
      std::string argument = fmt::format("__cc_frames_arg{}", unit.nextLabel++);
      edits.before[i] += fmt::format(".param .b64 {0};\nst.param.b64 [{0}], {1};\n", argument, has ? regs.table : "0");
      auto& in = std::get<Instruction>(f->body[i]);
      const size_t arguments = static_cast<size_t>(callShape(in).arguments - in.operands.data());
      in.operands[arguments].elements.push_back(Operand::name(argument));
    }
    if (!has) {
      if (!edits.before.empty()) applyEdits(*f, edits);
      continue;
    }
    ++(f->isEntry ? unit.stats.frameTableKernels : unit.stats.frameTableFunctions);

    // The frame's variables (nvcc's depot), pushed at entry.
    const analysis::SymbolTable symbols = analysis::functionSymbols(*f, moduleSymbols);
    std::string pushes;
    size_t variables = 0;
    for (const auto& s : f->body) {
      const auto* v = std::get_if<VariableDecl>(&s);
      if (!v || v->space != ".local") continue;
      for (const auto& d : v->declarators) {
        auto it = symbols.find(d.name);
        if (it == symbols.end() || it->second.size == 0) continue;
        const uint8_t object = unit.objectId(localFrameObject(*f, d.name, it->second.size));
        pushes += frameTablePushVariable(regs, d.name, it->second.size, object);
        frames.push_back(Pushed{f, d.name, it->second.size, object});
        ++unit.stats.frameTablePushes;
        ++variables;
      }
    }
    // Each block an alloca makes, pushed after it (its size copied before: the alloca may write
    // the register that held it).
    bool allocas = false;
    for (size_t i = 0; i < f->body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&f->body[i]);
      if (!in || in->opcode != "alloca" || in->operands.size() < 2) continue;
      allocas = true;
      std::string push = frameTablePushBlock(regs, printOperand(in->operands[0]), kBlockSize);
      std::string before = fmt::format("mov.u64 {}, {};\n", kBlockSize, printOperand(in->operands[1]));
      if (in->guard) {
        std::string skip = fmt::format("$__cc_ftskip{}", unit.nextLabel++);
        push = fmt::format("@{}{} bra {};\n{}{}:\n", in->guard->negated ? "" : "!", in->guard->predicate, skip, push, skip);
      }
      edits.before[i] += before;
      edits.after[i] += push;
      ++unit.stats.frameTablePushes;
    }
    std::string prologue;
    if (f->isEntry) {
      // The kernel's own table, in its local memory.
      auto declaration = parseSyntheticStatements(
          fmt::format(".local .align 8 .b8 {}[{}];\n", kTableVariable, kFrameTableBytes));
      f->body.insert(f->body.begin(), declaration.begin(), declaration.end());
      // (The edits' statement indices move by the declaration's.)
      BodyEdits moved;
      for (auto& [i, text] : edits.before) moved.before[i + declaration.size()] = std::move(text);
      for (auto& [i, text] : edits.after) moved.after[i + declaration.size()] = std::move(text);
      edits = std::move(moved);
      prologue = frameTablePrologue(regs, kTableVariable, "");
    } else {
      prologue = frameTablePrologue(regs, "", kFrameTableParameter);
    }
    if (allocas) prologue += fmt::format(".reg .b64 {};\n", kBlockSize);
    if (!pushes.empty() || allocas) {
      if (allocas) prologue += frameTableSaveDepth(regs);
      if (variables) prologue += frameTableNewSerial(regs, taggers.count(f->name) != 0);
      prologue += pushes;
      // Every return restores the depth at entry (a kernel's table ends with it).
      std::optional<size_t> pushed;
      if (!allocas) pushed = variables;
      if (!f->isEntry)
        for (size_t i = 0; i < f->body.size(); ++i)
          if (const auto* in = std::get_if<Instruction>(&f->body[i]); in && in->opcode == "ret")
            edits.before[i] += frameTablePop(regs, in->guard ? in->guard->predicate : "",
                                             in->guard && in->guard->negated, pushed);
    }
    edits.prologue = prologue + edits.prologue;
    applyEdits(*f, edits);
  }
  // The arrays of the frames pushed, for the lookup (after every frame's own object, so that
  // those keep theirs where the unit's 255 run out). Not for a frame larger than an entry's
  // size field, whose entry does not give its end.
  for (const Pushed& p : frames) {
    auto function = unit.frameArrayStarts.find(p.function->name);
    if (!p.object || p.bytes > kFrameTableMaxFrameBytes || function == unit.frameArrayStarts.end()) continue;
    auto starts = function->second.find(p.symbol);
    if (starts == function->second.end() || starts->second.empty()) continue;
    std::vector<FrameArray> arrays;
    for (auto s = starts->second.begin(); s != starts->second.end(); ++s) {
      const uint64_t end = std::next(s) == starts->second.end() ? p.bytes : *std::next(s);
      const uint8_t object = unit.objectId(localArrayObject(*p.function, p.symbol, p.bytes, *s, end - *s));
      if (!object) break;
      arrays.push_back(FrameArray{static_cast<uint32_t>(*s), object});
    }
    if (arrays.size() == starts->second.size()) unit.frameArrays[p.object] = std::move(arrays);
  }
}

}  // namespace cucatch::instrument
