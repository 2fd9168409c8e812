#include "analysis/CFG.h"

#include <algorithm>
#include <cstdint>

namespace cucatch::analysis {

using namespace cucatch::ptx;

namespace {
// Does control never fall through past this instruction?
bool endsFlow(const Instruction& in) {
  if (in.guard) return false;
  return in.opcode == "bra" || in.opcode == "brx" || in.opcode == "ret" || in.opcode == "exit" ||
         in.opcode == "trap";
}
bool branches(const Instruction& in) { return in.opcode == "bra" || in.opcode == "brx"; }
}  // namespace

CFG::CFG(const Function& f) {
  const auto& body = f.body;
  blockOfStatement_.assign(body.size(), 0);
  // Leaders: the first statement, every label, every statement after a branch or end of flow.
  std::vector<bool> leader(body.size() + 1, false);
  leader[0] = true;
  std::unordered_map<std::string, size_t> labelAt;
  std::unordered_map<std::string, std::vector<std::string>> targetLists;  // .branchtargets
  for (size_t i = 0; i < body.size(); ++i) {
    if (auto* l = std::get_if<Label>(&body[i])) {
      leader[i] = true;
      labelAt[l->name] = i;
      if (i + 1 < body.size())
        if (auto* t = std::get_if<TargetList>(&body[i + 1])) targetLists[l->name] = t->targets;
    } else if (auto* in = std::get_if<Instruction>(&body[i])) {
      if (branches(*in) || endsFlow(*in)) leader[i + 1] = true;
    }
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (leader[i]) blocks_.push_back({i, i, {}, {}});
    blocks_.back().last = i + 1;
    blockOfStatement_[i] = blocks_.size() - 1;
  }
  if (blocks_.empty()) blocks_.push_back({0, 0, {}, {}});
  auto blockOfLabel = [&](const std::string& name) -> size_t {
    auto it = labelAt.find(name);
    return it == labelAt.end() ? SIZE_MAX : blockOfStatement_[it->second];
  };
  for (size_t b = 0; b < blocks_.size(); ++b) {
    BasicBlock& bb = blocks_[b];
    bool fallsThrough = true;
    for (size_t i = bb.first; i < bb.last; ++i) {
      auto* in = std::get_if<Instruction>(&body[i]);
      if (!in) continue;
      if (in->opcode == "bra" && !in->operands.empty()) {
        size_t t = blockOfLabel(in->operands[0].text);
        if (t != SIZE_MAX) bb.successors.push_back(t);
      } else if (in->opcode == "brx" && in->operands.size() > 1) {
        auto it = targetLists.find(in->operands[1].text);
        if (it != targetLists.end())
          for (const auto& target : it->second)
            if (size_t t = blockOfLabel(target); t != SIZE_MAX) bb.successors.push_back(t);
      }
      if (endsFlow(*in)) fallsThrough = false;
    }
    if (fallsThrough && b + 1 < blocks_.size()) bb.successors.push_back(b + 1);
    std::sort(bb.successors.begin(), bb.successors.end());
    bb.successors.erase(std::unique(bb.successors.begin(), bb.successors.end()), bb.successors.end());
  }
  for (size_t b = 0; b < blocks_.size(); ++b)
    for (size_t s : blocks_[b].successors) blocks_[s].predecessors.push_back(b);
  computeDominators();
  computeLoops();
}

void CFG::computeDominators() {
  size_t n = blocks_.size();
  // Reverse post-order by an explicit-stack DFS (bodies can have thousands of blocks).
  std::vector<uint8_t> state(n, 0);
  std::vector<std::pair<size_t, size_t>> stack{{0, 0}};
  std::vector<size_t> post;
  state[0] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (next < blocks_[b].successors.size()) {
      size_t s = blocks_[b].successors[next++];
      if (!state[s]) {
        state[s] = 1;
        stack.push_back({s, 0});
      }
    } else {
      post.push_back(b);
      stack.pop_back();
    }
  }
  rpo_.assign(post.rbegin(), post.rend());
  rpoIndex_.assign(n, SIZE_MAX);
  for (size_t i = 0; i < rpo_.size(); ++i) rpoIndex_[rpo_[i]] = i;
  // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm".
  idom_.assign(n, SIZE_MAX);
  idom_[0] = 0;
  auto intersect = [&](size_t a, size_t b) {
    while (a != b) {
      while (rpoIndex_[a] > rpoIndex_[b]) a = idom_[a];
      while (rpoIndex_[b] > rpoIndex_[a]) b = idom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 1; i < rpo_.size(); ++i) {
      size_t b = rpo_[i], d = SIZE_MAX;
      for (size_t p : blocks_[b].predecessors) {
        if (idom_[p] == SIZE_MAX) continue;
        d = d == SIZE_MAX ? p : intersect(p, d);
      }
      if (d != idom_[b]) {
        idom_[b] = d;
        changed = true;
      }
    }
  }
}

bool CFG::dominates(size_t a, size_t b) const {
  if (idom_[b] == SIZE_MAX) return false;
  while (true) {
    if (a == b) return true;
    if (b == 0) return false;
    b = idom_[b];
  }
}

bool CFG::inLoop(size_t block) const {
  return std::any_of(loops_.begin(), loops_.end(), [block](const Loop& l) {
    return std::find(l.blocks.begin(), l.blocks.end(), block) != l.blocks.end();
  });
}

void CFG::computeLoops() {
  for (size_t b = 0; b < blocks_.size(); ++b) {
    for (size_t h : blocks_[b].successors) {
      if (!dominates(h, b)) continue;  // not a back edge
      Loop loop{h, {h}};
      std::vector<size_t> work{b};
      std::vector<bool> in(blocks_.size(), false);
      in[h] = true;
      while (!work.empty()) {
        size_t x = work.back();
        work.pop_back();
        if (in[x]) continue;
        in[x] = true;
        loop.blocks.push_back(x);
        for (size_t p : blocks_[x].predecessors) work.push_back(p);
      }
      std::sort(loop.blocks.begin(), loop.blocks.end());
      loops_.push_back(std::move(loop));
    }
  }
}

}  // namespace cucatch::analysis
