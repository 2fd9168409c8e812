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
//
// A region of a function's body whose checks a test before it makes unneeded where it passes
// (a family across guards, analysis/AddressFamilies.h) gets the same treatment per thread: the
// test branches to a copy of the region with every check, at the body's end, which comes back to
// where the region ends; the region in place leaves out the branches to those checks' failing
// parts. Threads of a warp may take different copies, so a region holds nothing a warp or a
// block must run together (guardedFamilies makes sure).
#pragma once

#include <set>
#include <string>
#include <vector>

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

struct RegionVersion {
  // The test's branch to this label (where the checked copy starts) comes right before the
  // region; the region ends at `exitLabel`, where the copy comes back.
  std::string checkedLabel, exitLabel;
  // The labels of the failing parts the region in place no longer branches to.
  std::set<std::string> uncheckedBranches;
};

// After the body is rebuilt: copies each region as above. A region some label of which is
// branched to from outside it (a coalesced group's out-of-line checks come back into it) is left
// as it is, and its test's branch taken out. Returns how many regions were copied.
size_t addRegionVersions(ptx::Function& f, const std::vector<RegionVersion>& versions);

}  // namespace cucatch::instrument
