#include "instrument/StackReserve.h"

#include "instrument/Unit.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

unsigned frameOf(const std::map<std::string, unsigned>& frames, const std::string& f) {
  auto it = frames.find(f);
  return it == frames.end() ? 0 : it->second;
}

}  // namespace

callgraph::Functions callGraphOf(const Module& module, const std::map<std::string, unsigned>& original,
                                 const std::map<std::string, unsigned>& frames, const std::set<std::string>& forwarders) {
  callgraph::Functions out;
  for (const Function* f : module.functions()) {
    if (!f->hasBody) continue;
    callgraph::Function& node = out[f->name];
    node.kernel = f->isEntry;
    node.frame = frameOf(frames, f->name);
    // (NAME__cc_body and NAME__cc_launch have NAME's body. A forwarder has no frame in the
    // original, NAME's own included where NAME became one.)
    node.forwarder = forwarders.count(f->name) != 0;
    if (!node.forwarder)
      node.original = frameOf(original, original.count(f->name) ? f->name : sourceFunctionName(*f));
    for (const auto& s : f->body) {
      const auto* in = std::get_if<Instruction>(&s);
      if (!in || in->opcode != "call") continue;
      CallShape c = callShape(*in);
      if (c.prototype)
        node.callsIndirectly = true;
      else if (c.callee)
        node.callees.insert(c.callee->text);
    }
  }
  return out;
}

std::vector<std::string> kernelsWithUnsizedStack(const Module& module) {
  return callgraph::kernelsWithUnsizedStack(callGraphOf(module));
}

StackReserves stackReserves(const Module& instrumented, const std::map<std::string, unsigned>& original,
                            const std::map<std::string, unsigned>& frames, const std::set<std::string>& forwarders) {
  return callgraph::stackReserves(callGraphOf(instrumented, original, frames, forwarders));
}

}  // namespace cucatch::instrument
