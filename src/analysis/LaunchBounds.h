// Bounds of 32-bit values in terms of what a launch fixes for every thread of it: the block's
// dimensions (%ntid) and its dynamic shared memory size (%dynamic_smem_size). A shared access
// such as `buf[from + threadIdx.x]`, with `from` alternating between 0 and blockDim.x in a loop,
// has no constant bound, but lies inside `extern __shared__ buf[]` for every launch whose
// dynamic shared memory holds 2 * blockDim.x elements: a condition the kernel can test once, at
// entry (LaunchVersions.h), instead of a check at every access.
//
// A flow-insensitive interval analysis over 32-bit registers, like ValueRange's, but with affine
// bounds (c + k·(ntid.x, ntid.y, ntid.z, dynamic_smem_size)) and every definition of a register
// joined (nvcc's loop-carried values are registers defined several times): a fixpoint, widened
// to "unbounded" where a bound keeps growing (an induction variable). %tid.x lies in
// [0, ntid.x - 1]. Every bound holds with no wrap-around for every launch the hardware allows
// (blocks of at most 1024 x 1024 x 64 threads, or the kernel's .reqntid, or no dimension above
// its .maxntid's product; dynamic shared memory and a variable's shared address below 2^24), or
// the value is unbounded. A register no instruction writes holds anything: unbounded. (Like
// ValueRange's, the analysis takes a register's value to be one its definitions make: a read on
// a path where none has run, which nvcc was not seen to emit, is not seen.)
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "analysis/CFG.h"
#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

// What a launch fixes for all of its threads.
enum LaunchValue : uint8_t { kNtidX, kNtidY, kNtidZ, kDynamicSmemSize, kLaunchValues };

// c + Σ k[v] · value(v).
struct LaunchAffine {
  int64_t constant = 0;
  std::array<int64_t, kLaunchValues> k{};
  auto operator<=>(const LaunchAffine&) const = default;
};

// A conjunction: the launch satisfies it where every function in it is >= 0. Empty: always.
using LaunchCondition = std::set<LaunchAffine>;

// The largest %tid.x, .y, .z (-1: no bound) of a thread that runs a statement of `f`, as the
// branches on every way there say: `if (threadIdx.x < 4)` (setp.lt.u32 %p, %tid, 4; @!%p bra
// past it) bounds %tid.x by 3 in every block the branch's side dominates. A halo's load is made
// by a few threads only, and lies inside its tile only for them.
using ThreadLimits = std::array<int64_t, 3>;
class ThreadGuards {
 public:
  ThreadGuards(const ptx::Function& f, const CFG& cfg, const PointerAnalysis& pa);
  ThreadLimits at(size_t statement) const;

 private:
  // The instruction that defines `reg`, where one unguarded instruction does (predicates too).
  const ptx::Instruction* onlyDefinition(const std::string& reg) const;
  void learn(ThreadLimits& limits, const std::string& predicate, bool value, int depth) const;

  const ptx::Function& f_;
  const CFG& cfg_;
  const PointerAnalysis& pa_;
  std::unordered_map<std::string, const ptx::Instruction*> only_;  // null: several, or guarded
};

class LaunchBounds {
 public:
  // `symbols`: the variables visible in `f` (a shared variable's address is a term of a bound).
  // `threads`: bounds on %tid (ThreadGuards) where the bounds are for the statements such a
  // branch guards; all of a thread's values are bounded for it, wherever they were made.
  LaunchBounds(const ptx::Function& f, const PointerAnalysis& pa, const SymbolTable& symbols,
               const ThreadLimits& threads = {-1, -1, -1});

  // Where every byte of shared access `a` lies inside shared variable `variable` (its declared
  // size, or the dynamic region's %dynamic_smem_size bytes) for every launch that satisfies the
  // returned condition (empty: every launch); nothing where no bound says so, or where the
  // condition can hold for no launch.
  std::optional<LaunchCondition> inBoundsWhen(const AccessSite& a, const std::string& variable) const;

  // A value: [the address of `symbol` +] a number in [lo, hi]; or unbounded (`unbounded`).
  struct Bound {
    LaunchAffine lo, hi;
    std::string symbol;
    bool unbounded = false;
    bool operator==(const Bound&) const = default;
  };
  // The bound of 32-bit register `reg` (unbounded where none is known).
  Bound of(const std::string& reg) const;
  // The least and the largest value `a` takes over every launch.
  __int128 leastOf(const LaunchAffine& a) const;
  __int128 mostOf(const LaunchAffine& a) const;
  // Whether `term` can be >= 0 for a launch whose block has at least a warp's threads in the
  // dimensions the function reads (%tid, %ntid): a condition that holds only for smaller blocks
  // (a guarded halo's, bounded by the whole block) would keep the copy from ever running.
  bool plausible(const LaunchAffine& term) const;
  // The terms of `condition` that no other term of it implies (each is >= 0 wherever another,
  // no larger at any launch, is), so that the test at entry is as short as it can be.
  LaunchCondition weakestTerms(const LaunchCondition& condition) const;

 private:
  std::optional<Bound> transfer(const ptx::Instruction& in) const;
  std::optional<Bound> operand(const ptx::Operand& o) const;
  bool valid(const Bound& b) const;

  const ptx::Function& f_;
  const PointerAnalysis& pa_;
  const SymbolTable& symbols_;
  // Every value a launch may give (the box bounds are checked over): [min, max] per LaunchValue.
  std::array<int64_t, kLaunchValues> min_{}, max_{};
  ThreadLimits threads_;
  std::array<bool, 3> readsDimension_{};  // %tid.d or %ntid.d appears in the function
  std::unordered_map<std::string, Bound> bounds_;  // a register absent: not reached yet (fixpoint)
  std::unordered_set<std::string> defined_;        // the 32-bit registers some instruction writes
};

}  // namespace cucatch::analysis
