#include "callgraph/StackBounds.h"

#include <algorithm>
#include <functional>

namespace cucatch::callgraph {

namespace {

// Who calls whom, with its strongly connected components: a function is in a cycle where its
// component has more than one function or it calls itself.
class CallGraph {
 public:
  explicit CallGraph(const Functions& functions) : functions_(functions) {
    for (const auto& [name, f] : functions)
      if (!f.kernel) deviceFunctions_.insert(name);
    findComponents();
  }

  std::set<std::string> successors(const std::string& f) const {
    std::set<std::string> out;
    auto it = functions_.find(f);
    if (it == functions_.end()) return out;
    out = it->second.callees;
    if (it->second.callsIndirectly) out.insert(deviceFunctions_.begin(), deviceFunctions_.end());
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
  // The sum of the frames of the forwarders in `f`'s cycle (0 outside cycles).
  uint64_t forwarderFrames(const std::string& f) const {
    auto c = component_.find(f);
    if (!inCycle(f) || c == component_.end()) return 0;
    uint64_t sum = 0;
    for (const auto& g : members_[c->second])
      if (auto it = functions_.find(g); it != functions_.end() && it->second.forwarder) sum += it->second.frame;
    return sum;
  }
  bool callsIndirectly(const std::string& f) const {
    auto it = functions_.find(f);
    return it != functions_.end() && it->second.callsIndirectly;
  }

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
    for (const auto& [root, unused] : functions_) {
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
            if (!functions_.count(g)) continue;  // declared only: no frame of the module's
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

  const Functions& functions_;
  std::set<std::string> deviceFunctions_;
  std::map<std::string, size_t> component_;
  std::vector<std::vector<std::string>> members_;
  std::set<std::string> cyclic_;
};

// The kernels whose stack ptxas cannot size, each with what its calls reach.
std::map<std::string, std::set<std::string>> unsizedKernels(const CallGraph& graph, const Functions& functions) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [name, k] : functions) {
    if (!k.kernel) continue;
    std::set<std::string> reached = graph.reachedFrom(name);
    if (k.callsIndirectly || std::any_of(reached.begin(), reached.end(), [&](const std::string& f) {
          return graph.callsIndirectly(f) || graph.inCycle(f);
        }))
      out.emplace(name, std::move(reached));
  }
  return out;
}

}  // namespace

std::vector<std::string> kernelsWithUnsizedStack(const Functions& functions) {
  std::vector<std::string> out;
  for (const auto& [kernel, reached] : unsizedKernels(CallGraph(functions), functions)) out.push_back(kernel);
  return out;
}

StackReserves stackReserves(const Functions& functions) {
  const CallGraph graph(functions);
  auto frameOf = [&](const std::string& f) -> const Function* {
    auto it = functions.find(f);
    return it == functions.end() ? nullptr : &it->second;
  };
  StackReserves out;
  for (auto& [kernel, path] : unsizedKernels(graph, functions)) {
    path.insert(kernel);
    StackReserve r;
    bool grew = false, bounded = true;
    for (const auto& name : path) {
      const Function* f = frameOf(name);
      if (!f) continue;  // declared only
      const uint64_t before = f->forwarder ? 0 : f->original;
      grew |= f->frame != before;
      if (!graph.inCycle(name) || f->forwarder) continue;
      const uint64_t now = f->frame + graph.forwarderFrames(name);
      if (before)
        r.ratioPerMille = std::max<uint32_t>(r.ratioPerMille, static_cast<uint32_t>((now * 1000 + before - 1) / before));
      else if (now)
        bounded = false;
    }
    r.extraBytes = graph.heaviestPath(kernel, [&](const std::string& name) {
      const Function* f = frameOf(name);
      return f ? f->frame : 0;
    });
    if (!bounded)
      out.unbounded.push_back(kernel);
    else if (grew)
      out.kernels[kernel] = r;
  }
  return out;
}

}  // namespace cucatch::callgraph
