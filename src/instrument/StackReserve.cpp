#include "instrument/StackReserve.h"

#include <algorithm>
#include <functional>
#include <set>

#include "instrument/Unit.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

namespace {

// Who calls whom: direct calls by name; an indirect call may reach every device function with a
// body (which of them is not known here). With its strongly connected components: a function is
// in a cycle where its component has more than one function or it calls itself.
class CallGraph {
 public:
  explicit CallGraph(const Module& module) {
    for (const Function* f : module.functions()) {
      if (!f->hasBody) continue;
      functions_.push_back(f->name);
      bodies_.insert(f->name);
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
    findComponents();
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

  // The largest sum of `weight` over the functions outside cycles on one call path from `f`:
  // a path enters each component once (the components form a DAG), and a function outside a
  // cycle is a component of its own.
  uint64_t heaviestPath(const std::string& f, const std::function<uint64_t(const std::string&)>& weight) const {
    std::map<size_t, uint64_t> memo;
    std::function<uint64_t(size_t)> from = [&](size_t c) -> uint64_t {
      if (auto it = memo.find(c); it != memo.end()) return it->second;
      uint64_t own = 0, next = 0;
      for (const auto& g : members_[c]) {
        if (!inCycle(g)) own += weight(g);
        for (const auto& h : successors(g))
          if (auto hc = component_.find(h); hc != component_.end() && hc->second != c) next = std::max(next, from(hc->second));
      }
      return memo[c] = own + next;
    };
    auto c = component_.find(f);
    return c == component_.end() ? weight(f) : from(c->second);
  }

 private:
  // Tarjan's algorithm, iteratively (a deep call chain must not exhaust this process' stack).
  void findComponents() {
    std::map<std::string, size_t> index, low;
    std::vector<std::string> stack;
    std::set<std::string> onStack;
    size_t next = 0;
    struct Frame {
      std::string f;
      std::vector<std::string> out;
      size_t i = 0;
    };
    for (const auto& root : functions_) {
      if (index.count(root)) continue;
      std::vector<Frame> work;
      auto enter = [&](const std::string& f) {
        index[f] = low[f] = next++;
        stack.push_back(f);
        onStack.insert(f);
        std::set<std::string> s = successors(f);
        work.push_back(Frame{f, {s.begin(), s.end()}, 0});
      };
      enter(root);
      while (!work.empty()) {
        Frame& top = work.back();
        if (top.i < top.out.size()) {
          const std::string g = top.out[top.i++];
          if (!index.count(g)) {
            if (!bodies_.count(g)) continue;  // declared only: no frame of the module's
            enter(g);
          } else if (onStack.count(g)) {
            low[top.f] = std::min(low[top.f], index[g]);
          }
          continue;
        }
        const std::string f = top.f;
        work.pop_back();
        if (!work.empty()) low[work.back().f] = std::min(low[work.back().f], low[f]);
        if (low[f] != index[f]) continue;
        std::vector<std::string> members;
        for (std::string g; g != f;) {
          g = stack.back();
          stack.pop_back();
          onStack.erase(g);
          members.push_back(g);
          component_[g] = members_.size();
        }
        if (members.size() > 1 || successors(f).count(f)) cyclic_.insert(members.begin(), members.end());
        members_.push_back(std::move(members));
      }
    }
  }

  std::vector<std::string> functions_;  // with a body, in the module's order
  std::set<std::string> bodies_;
  std::map<std::string, std::set<std::string>> callees_;
  std::set<std::string> indirect_;
  std::set<std::string> deviceFunctions_;
  std::map<std::string, size_t> component_;
  std::vector<std::vector<std::string>> members_;
  std::set<std::string> cyclic_;
};

// The kernels of `module` whose stack ptxas cannot size, each with what its calls reach.
std::map<std::string, std::set<std::string>> unsizedKernels(const CallGraph& graph, const Module& module) {
  std::map<std::string, std::set<std::string>> out;
  for (const Function* k : module.functions()) {
    if (!k->isEntry || !k->hasBody) continue;
    std::set<std::string> reached = graph.reachedFrom(k->name);
    if (graph.callsIndirectly(k->name) ||
        std::any_of(reached.begin(), reached.end(),
                    [&](const std::string& f) { return graph.callsIndirectly(f) || graph.inCycle(f); }))
      out.emplace(k->name, std::move(reached));
  }
  return out;
}

unsigned frameOf(const std::map<std::string, unsigned>& frames, const std::string& f) {
  auto it = frames.find(f);
  return it == frames.end() ? 0 : it->second;
}

// The frame `f` had in the original: its own, or, for the entry point that takes its pointers'
// bounds from its callers (RelocatableCalls.h: NAME__cc_meta, which has NAME's body; NAME became
// a forwarder to it) and for a kernel's launch twin (LaunchMetadata.h), NAME's.
unsigned originalFrameOf(const std::map<std::string, unsigned>& original, const std::string& f) {
  return frameOf(original, original.count(f) ? f : sourceFunctionName(f));
}

}  // namespace

std::vector<std::string> kernelsWithUnsizedStack(const Module& module) {
  std::vector<std::string> out;
  for (const auto& [kernel, reached] : unsizedKernels(CallGraph(module), module)) out.push_back(kernel);
  return out;
}

StackReserves stackReserves(const Module& instrumented, const std::map<std::string, unsigned>& original,
                            const std::map<std::string, unsigned>& frames) {
  const CallGraph graph(instrumented);
  StackReserves out;
  for (auto& [kernel, path] : unsizedKernels(graph, instrumented)) {
    path.insert(kernel);
    StackReserve r;
    bool grew = false, bounded = true;
    for (const auto& f : path) {
      const uint64_t now = frameOf(frames, f), before = originalFrameOf(original, f);
      grew |= now != before;
      if (!graph.inCycle(f)) continue;
      if (before)
        r.ratioPerMille = std::max<uint32_t>(r.ratioPerMille, static_cast<uint32_t>((now * 1000 + before - 1) / before));
      else if (now)
        bounded = false;
    }
    r.extraBytes = graph.heaviestPath(kernel, [&](const std::string& f) { return frameOf(frames, f); });
    if (!bounded)
      out.unbounded.push_back(kernel);
    else if (grew)
      out.kernels[kernel] = r;
  }
  return out;
}

}  // namespace cucatch::instrument
