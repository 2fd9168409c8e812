#include "instrument/WarpSync.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

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

// A block-wide barrier: every non-exited thread of the block (or of the warps its thread count
// names) waits there.
bool isBlockBarrier(const Instruction& in) {
  return (in.opcode == "bar" || in.opcode == "barrier") && !in.hasModifier(".warp") &&
         (in.hasModifier(".sync") || in.hasModifier(".red"));
}

// The callee of a direct call, or "".
std::string directCallee(const Instruction& in) {
  if (in.opcode != "call") return {};
  CallShape c = callShape(in);
  return c.callee && !c.prototype ? c.callee->text : std::string();
}

// A property of the module's functions that follows calls, memoized: `decide(f, self)` for a
// function with a body (asking `self` about what it calls), `unseen(name)` for one without; a
// function asked about while it is being decided (recursion) reads as `inRecursion`.
class OverCalls {
 public:
  using Decide = std::function<bool(const Function&, OverCalls&)>;
  OverCalls(const Module& module, std::function<bool(const std::string&)> unseen, bool inRecursion, Decide decide)
      : unseen_(std::move(unseen)), inRecursion_(inRecursion), decide_(std::move(decide)) {
    for (const Function* f : module.functions())
      if (f->hasBody) defined_[f->name] = f;
  }
  bool operator()(const std::string& name) {
    if (auto k = known_.find(name); k != known_.end()) return k->second;
    auto f = defined_.find(name);
    if (f == defined_.end()) return known_[name] = unseen_(name);
    known_[name] = inRecursion_;
    return known_[name] = decide_(*f->second, *this);
  }

 private:
  std::map<std::string, const Function*> defined_;
  std::map<std::string, bool> known_;
  std::function<bool(const std::string&)> unseen_;
  bool inRecursion_;
  Decide decide_;
};

}  // namespace

std::set<std::string> blockBarrierFunctions(const Module& module) {
  OverCalls waits(
      module, [](const std::string&) { return false; }, false, [](const Function& f, OverCalls& waits) {
        std::set<std::string> targets;  // labels some branch goes to
        for (const auto& s : f.body)
          if (const auto* in = std::get_if<Instruction>(&s); in && (in->opcode == "bra" || in->opcode == "brx"))
            for (const auto& o : in->operands)
              if (o.kind == OperandKind::Name) targets.insert(o.text);
        for (const auto& s : f.body) {
          if (const auto* label = std::get_if<Label>(&s); label && targets.count(label->name)) return false;
          const auto* in = std::get_if<Instruction>(&s);
          if (!in) continue;
          if (in->opcode == "bra" || in->opcode == "brx" || in->opcode == "ret" || in->opcode == "exit" ||
              in->opcode == "trap")
            return false;
          if (in->guard) continue;
          if (isBlockBarrier(*in)) return true;
          if (std::string callee = directCallee(*in); !callee.empty() && waits(callee)) return true;
        }
        return false;
      });
  std::set<std::string> out;
  for (const Function* f : module.functions())
    if (f->hasBody && waits(f->name)) out.insert(f->name);
  return out;
}

void resyncBeforeBarrierCalls(FunctionChecks& checks, const std::set<std::string>& waiting) {
  const auto& body = checks.function.body;
  for (size_t i = 0; i < body.size(); ++i) {
    const auto* in = std::get_if<Instruction>(&body[i]);
    if (!in || in->loc.line == 0) continue;  // (cucatch's own calls)
    std::string callee = directCallee(*in);
    if (callee.empty() || !waiting.count(callee)) continue;
    std::string guard = in->guard ? guardPrefix(in->guard->predicate, in->guard->negated) : std::string();
    checks.edits.before[i] += guard + "bar.warp.sync -1;\n";
    ++checks.unit.stats.barrierResyncs;
    checks.markRewritten();
  }
}

std::set<std::string> warpResyncKernels(const Module& module) {
  // Whether a call may run a warp collective (or anything unseen), transitively.
  OverCalls collects(module, [](const std::string& name) { return !isSystemFunction(name); }, true,
                     [](const Function& f, OverCalls& collects) {
                       bool any = hasCollective(f);
                       for (const auto& s : f.body)
                         if (const auto* in = std::get_if<Instruction>(&s); in && in->opcode == "call" && !any) {
                           CallShape c = callShape(*in);
                           any = c.prototype || !c.callee || collects(c.callee->text);
                         }
                       return any;
                     });
  std::set<std::string> out;
  for (const Function* f : module.functions()) {
    if (!f->hasBody || !f->isEntry) continue;
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
    if (!cfg.inLoop(*blocks.begin())) out.insert(f->name);
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
