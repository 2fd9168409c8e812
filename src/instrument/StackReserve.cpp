#include "instrument/StackReserve.h"

#include <algorithm>
#include <set>

#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

// Who calls whom: direct calls by name; an indirect call may reach every device function with a
// body (which of them is not known here).
class CallGraph {
 public:
  explicit CallGraph(const Module& module) {
    for (const Function* f : module.functions()) {
      if (!f->hasBody) continue;
      if (!f->isEntry) deviceFunctions_.insert(f->name);
      for (const auto& s : f->body) {
        const auto* in = std::get_if<Instruction>(&s);
        if (!in || in->opcode != "call") continue;
        CallShape c = callShape(*in);
        if (c.prototype)
          indirect_.insert(f->name);
        else if (c.callee)
          callees_[f->name].insert(c.callee->text);
      }
    }
    // (Once: which functions a cycle goes through. A walk from each function, not from each
    // function of each kernel's path.)
    for (const auto& [f, callees] : callees_)
      if (reachedFrom(f).count(f)) cyclic_.insert(f);
    for (const auto& f : indirect_)
      if (reachedFrom(f).count(f)) cyclic_.insert(f);
  }

  std::set<std::string> successors(const std::string& f) const {
    std::set<std::string> out;
    if (auto it = callees_.find(f); it != callees_.end()) out = it->second;
    if (indirect_.count(f)) out.insert(deviceFunctions_.begin(), deviceFunctions_.end());
    return out;
  }

  // What calls from `f` reach, transitively (not `f` itself unless a cycle leads back to it).
  std::set<std::string> reachedFrom(const std::string& f) const {
    std::set<std::string> seen;
    std::vector<std::string> work{f};
    while (!work.empty()) {
      std::string g = std::move(work.back());
      work.pop_back();
      for (const auto& h : successors(g))
        if (seen.insert(h).second) work.push_back(h);
    }
    return seen;
  }

  bool inCycle(const std::string& f) const { return cyclic_.count(f) != 0; }
  bool callsIndirectly(const std::string& f) const { return indirect_.count(f) != 0; }

 private:
  std::map<std::string, std::set<std::string>> callees_;
  std::set<std::string> indirect_;
  std::set<std::string> deviceFunctions_;
  std::set<std::string> cyclic_;
};

bool unsized(const CallGraph& graph, const std::string& kernel) {
  if (graph.callsIndirectly(kernel)) return true;
  for (const auto& f : graph.reachedFrom(kernel))
    if (graph.callsIndirectly(f) || graph.inCycle(f)) return true;
  return false;
}

unsigned frameOf(const std::map<std::string, unsigned>& frames, const std::string& f) {
  auto it = frames.find(f);
  return it == frames.end() ? 0 : it->second;
}

}  // namespace

std::vector<std::string> kernelsWithUnsizedStack(const Module& module) {
  const CallGraph graph(module);
  std::vector<std::string> out;
  for (const Function* f : module.functions())
    if (f->isEntry && f->hasBody && unsized(graph, f->name)) out.push_back(f->name);
  return out;
}

StackReserves stackReserves(const Module& instrumented, const std::map<std::string, unsigned>& original,
                            const std::map<std::string, unsigned>& frames) {
  const CallGraph graph(instrumented);
  StackReserves out;
  for (const std::string& kernel : kernelsWithUnsizedStack(instrumented)) {
    std::set<std::string> path = graph.reachedFrom(kernel);
    path.insert(kernel);
    StackReserve r;
    bool grew = false, bounded = true;
    for (const auto& f : path) {
      const uint64_t now = frameOf(frames, f), before = frameOf(original, f);
      grew |= now != before;
      if (!graph.inCycle(f)) {
        r.extraBytes += now;
      } else if (before) {
        r.ratioPerMille = std::max<uint32_t>(r.ratioPerMille, static_cast<uint32_t>((now * 1000 + before - 1) / before));
      } else if (now) {
        bounded = false;
      }
    }
    if (!bounded)
      out.unbounded.push_back(kernel);
    else if (grew)
      out.kernels[kernel] = r;
  }
  return out;
}

}  // namespace cucatch::instrument
