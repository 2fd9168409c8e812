// A kernel whose shared accesses are in bounds for every launch that satisfies a condition on its
// block's dimensions and dynamic shared memory size (analysis/LaunchBounds.h) gets two versions
// of its body: the checked one, and a copy without those accesses' checks, which it runs where
// the launch satisfies the condition, tested once at entry. The condition is the same for every
// thread of a launch, so all of them take the same version: no divergence, and a barrier is met
// by the whole block in one of them. A launch that does not satisfy it (too little dynamic
// shared memory for the block) runs the checked version, which reports the access that fails.
//
// The two versions are the same code with the same registers, where the copy leaves out the
// branch to each proven check's failing part (ptxas then drops the check's arithmetic as dead).
#pragma once

#include <set>
#include <string>

#include "analysis/LaunchBounds.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

struct LaunchVersion {
  // Where the copy runs; what proves the checks below.
  analysis::LaunchCondition condition;
  // The labels of the failing parts (and of range checks' groups) the copy never branches to.
  std::set<std::string> provenBranches;
  bool empty() const { return provenBranches.empty(); }
};

// Whether `f`'s body may be doubled: a kernel, none of whose nested scopes declares memory (a
// copy of `{ .shared .u32 x; ... }` would have its own x).
bool versionable(const ptx::Function& f);

// After the body is rebuilt: appends at `fastLabel` a copy of every statement after the branch to
// it (the prologue's last statement), with the labels it defines renamed, the function-scope
// declarations left out (they precede the copy) and the branches to `v.provenBranches` left out.
void addLaunchVersion(ptx::Function& f, const std::string& fastLabel, const LaunchVersion& v);

}  // namespace cucatch::instrument
