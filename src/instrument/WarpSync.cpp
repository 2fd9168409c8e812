#include "instrument/WarpSync.h"

#include <fmt/format.h>

#include "ptx/Printer.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

bool isWarpCollective(const Instruction& in) {
  if (!in.hasModifier(".sync") || in.operands.empty()) return false;
  // (bar.warp.sync is the barrier itself; wmma, mma and the matrix loads are .aligned, which
  // ptxas compiles as convergent already.)
  return in.opcode == "shfl" || in.opcode == "vote" || in.opcode == "match" || in.opcode == "redux";
}

void resyncWarpCollectives(FunctionChecks& checks) {
  if (!checks.options.warpResync || !checks.hasChecks()) return;
  const auto& body = checks.function.body;
  for (const analysis::BasicBlock& block : checks.cfg.blocks()) {
    for (size_t i = block.first; i < block.last; ++i) {
      const auto* in = std::get_if<Instruction>(&body[i]);
      if (!in) continue;
      // One already there (__syncwarp before a shuffle) does it.
      if (in->opcode == "bar" && in->hasModifier(".warp")) break;
      if (!isWarpCollective(*in)) continue;
      std::string guard = in->guard ? guardPrefix(in->guard->predicate, in->guard->negated) : std::string();
      checks.edits.before[i] += fmt::format("{}bar.warp.sync {};\n", guard, printOperand(in->operands.back()));
      ++checks.unit.stats.warpResyncs;
      break;  // the first of the block only
    }
  }
}

}  // namespace cucatch::instrument
