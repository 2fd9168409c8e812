// Control-flow graph of one function body, with dominators and natural loops.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ptx/IR.h"

namespace cucatch::analysis {

struct BasicBlock {
  size_t first = 0, last = 0;  // statement indices [first, last) in Function::body
  std::vector<size_t> successors, predecessors;
};

class CFG {
 public:
  explicit CFG(const ptx::Function& f);

  const std::vector<BasicBlock>& blocks() const { return blocks_; }
  size_t blockOf(size_t statement) const { return blockOfStatement_[statement]; }

  // Immediate dominator of each block (the entry's is itself); unreachable blocks: SIZE_MAX.
  const std::vector<size_t>& idom() const { return idom_; }
  bool dominates(size_t a, size_t b) const;

  struct Loop {
    size_t header;
    std::vector<size_t> blocks;  // including the header
  };
  const std::vector<Loop>& loops() const { return loops_; }
  // Whether `block` is in any natural loop.
  bool inLoop(size_t block) const;
  // Reverse post-order of the reachable blocks.
  const std::vector<size_t>& rpo() const { return rpo_; }

 private:
  void computeDominators();
  void computeLoops();

  std::vector<BasicBlock> blocks_;
  std::vector<size_t> blockOfStatement_;
  std::vector<size_t> idom_, rpo_, rpoIndex_;
  std::vector<Loop> loops_;
};

}  // namespace cucatch::analysis
