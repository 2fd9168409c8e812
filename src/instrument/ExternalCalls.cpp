#include "instrument/ExternalCalls.h"

#include <fmt/format.h>

#include <unordered_set>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "instrument/BodyEdit.h"
#include "instrument/Sequences.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

void untagExternalCallArguments(Module& module, UnitResult& unit, DeviceHeapEntries heapEntries, bool frameTags) {
  std::unordered_set<std::string> defined, declared;
  for (const Function* f : module.functions()) (f->hasBody ? defined : declared).insert(f->name);
  auto symbols = moduleSymbols(module);
  for (Function* f : module.functions()) {
    if (!f->hasBody) continue;
    // The .param stores that feed calls to functions declared without a body here.
    std::vector<size_t> targets;
    for (const CallArgumentStores& site : callArgumentStores(*f)) {
      CallShape c = callShape(std::get<Instruction>(f->body[site.call]));
      if (!c.callee || defined.count(c.callee->text) || !declared.count(c.callee->text)) continue;
      targets.insert(targets.end(), site.stores.begin(), site.stores.end());
    }
    if (targets.empty()) continue;
    CFG cfg(*f);
    PointerAnalysis pa(*f, cfg, symbols);
    size_t made = 0;
    BodyEdits edits;
    FunctionRegs regs;
    MetadataRegs scratch{"%__cc_xb", "%__cc_xs", "%__cc_xm"};
    auto untag = [&](size_t statement, Operand& value) {
      if (value.kind != OperandKind::Name || !pa.mayHoldPointer(value.text)) return;
      std::string reg = fmt::format("%__cc_x{}", made++);
      std::string from = value.text;
      if (frameTags) {
        edits.before[statement] += stripFrameTag(reg, from, scratch.base, "%__cc_xp");
        from = reg;
      }
      edits.before[statement] +=
          untagIfOurs(regs, scratch, reg, from, "%__cc_xp", "$__cc_direct" + std::to_string(unit.nextLabel++), heapEntries);
      value.text = reg;
      ++unit.stats.untaggedCallArguments;
    };
    for (size_t statement : targets) {
      Operand& v = std::get<Instruction>(f->body[statement]).operands[1];
      if (v.kind == OperandKind::Vector)
        for (auto& e : v.elements) untag(statement, e);
      else
        untag(statement, v);
    }
    if (!made) continue;
    // The table registers and scratch READMETADATA uses, where the checks did not declare them.
    edits.prologue = fmt::format(".reg .b64 %__cc_x<{}>;\n.reg .b64 %__cc_xb, %__cc_xs;\n"
                                 ".reg .b32 %__cc_xm;\n.reg .pred %__cc_xp;\n",
                                 made);
    if (!pa.registers().isRegister(regs.bst)) edits.prologue += functionPrologue(regs);
    applyEdits(*f, edits);
  }
}

}  // namespace cucatch::instrument
