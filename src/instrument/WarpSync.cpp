#include "instrument/WarpSync.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "analysis/CFG.h"
#include "ptx/InstrInfo.h"
#include "ptx/Printer.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

bool isWarpCollective(const Instruction& in) {
  if (!in.hasModifier(".sync") || in.operands.empty()) return false;
  // (bar.warp.sync is the barrier itself; wmma, mma and the matrix loads are .aligned, which
  // ptxas compiles as convergent already.)
  return in.opcode == "shfl" || in.opcode == "vote" || in.opcode == "match" || in.opcode == "redux";
}

namespace {

bool isWarpBarrier(const Instruction& in) { return in.opcode == "bar" && in.hasModifier(".warp"); }

// A collective or a bar.warp.sync: where lanes of a warp wait for one another.
bool isWarpSyncPoint(const Instruction& in) { return isWarpCollective(in) || isWarpBarrier(in); }

bool hasCollective(const Function& f) {
  return std::any_of(f.body.begin(), f.body.end(), [](const Statement& s) {
    const auto* in = std::get_if<Instruction>(&s);
    return in && isWarpSyncPoint(*in);
  });
}

// The CUDA system's functions a kernel may call without warp collectives in them. (Narrower
// than DeviceHeap's isCudaSystemFunction, which asks another question: the rest of the device
// runtime, grid synchronization among it, may wait on the warp.)
bool isSystemFunction(const std::string& name) {
  static const char* const names[] = {"vprintf", "malloc", "free", "__assertfail", "__nv_aligned_device_malloc",
                                      "cudaGetParameterBuffer", "cudaGetParameterBufferV2", "cudaLaunchDevice",
                                      "cudaLaunchDeviceV2"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names) || name.rfind("__cucatch_", 0) == 0;
}

}  // namespace

std::set<std::string> warpResyncKernels(const Module& module) {
  std::map<std::string, const Function*> defined;
  for (const Function* f : module.functions())
    if (f->hasBody) defined[f->name] = f;
  // Whether a call may run a warp collective (or anything unseen), transitively.
  std::map<std::string, bool> mayCollect;
  std::function<bool(const std::string&)> collects = [&](const std::string& name) {
    if (auto known = mayCollect.find(name); known != mayCollect.end()) return known->second;
    auto f = defined.find(name);
    if (f == defined.end()) return mayCollect[name] = !isSystemFunction(name);
    mayCollect[name] = true;  // (recursion: assumed until shown otherwise)
    bool any = hasCollective(*f->second);
    for (const auto& s : f->second->body)
      if (const auto* in = std::get_if<Instruction>(&s); in && in->opcode == "call" && !any) {
        CallShape c = callShape(*in);
        any = c.prototype || !c.callee || collects(c.callee->text);
      }
    return mayCollect[name] = any;
  };
  std::set<std::string> out;
  for (const auto& [name, f] : defined) {
    if (!f->isEntry) continue;
    analysis::CFG cfg(*f);
    std::set<size_t> blocks;
    // Under one guard, or none: lanes whose guards differ would run different sequences of the
    // block's collectives (a second review's reproducer: @p shfl; shfl; @!p shfl).
    std::set<std::pair<std::string, bool>> guards;
    bool calls = false;
    for (size_t i = 0; i < f->body.size(); ++i) {
      const auto* in = std::get_if<Instruction>(&f->body[i]);
      if (!in) continue;
      if (isWarpSyncPoint(*in)) {
        blocks.insert(cfg.blockOf(i));
        guards.insert(in->guard ? std::pair{in->guard->predicate, in->guard->negated} : std::pair{std::string(), false});
      }
      if (in->opcode == "call") {
        CallShape c = callShape(*in);
        calls = calls || c.prototype || !c.callee || collects(c.callee->text);
      }
    }
    if (blocks.size() != 1 || guards.size() != 1 || calls) continue;
    if (!cfg.inLoop(*blocks.begin())) out.insert(name);
  }
  return out;
}

void resyncWarpCollectives(FunctionChecks& checks) {
  if (!checks.options.warpResyncKernels || !checks.options.warpResyncKernels->count(checks.function.name) ||
      !checks.hasChecks())
    return;
  const auto& body = checks.function.body;
  for (size_t i = 0; i < body.size(); ++i) {
    const auto* in = std::get_if<Instruction>(&body[i]);
    if (!in) continue;
    // One already there (__syncwarp before a shuffle) does it.
    if (isWarpBarrier(*in)) return;
    if (!isWarpCollective(*in)) continue;
    std::string guard = in->guard ? guardPrefix(in->guard->predicate, in->guard->negated) : std::string();
    checks.edits.before[i] += fmt::format("{}bar.warp.sync {};\n", guard, printOperand(in->operands.back()));
    ++checks.unit.stats.warpResyncs;
    return;  // the first only
  }
}

}  // namespace cucatch::instrument
