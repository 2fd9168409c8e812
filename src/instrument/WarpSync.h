// Warp-synchronous instructions after checks: a bar.warp.sync on the same member mask right
// before the first of them, in a kernel whose warp collectives all sit in one basic block.
//
// Why: a check's failing branch leaves for the function's report block, which never comes
// back. A loop of checked accesses then has no post-dominator inside the function, and ptxas
// puts the warp's reconvergence point at the report block rather than after the loop. A
// shfl.sync, vote.sync, match.sync or redux.sync after such a loop then compiles to its
// divergent form (BRA.DIV, WARPSYNC.COLLECTIVE), and every warp takes it. An explicit
// bar.warp.sync before the first of them reconverges the warp there, and ptxas emits the fast
// form for it and those after it in the block. Measured on the H100 (bench/overhead): a
// warp-per-row SpMV whose butterfly of five shuffles follows the loop went from 1.89x to 1.45x
// the plain time; a bar.warp.sync before each of the five shuffles instead made it 2.45x, so
// only the first gets one.
//
// When it changes nothing a correct program sees. Each of these instructions makes its thread
// wait until every non-exited thread of its member mask has executed one with the same mask,
// and on sm_70 and later not necessarily the same one: lanes on different paths may pair their
// collectives at different instructions. A barrier waits for a barrier, so it must come at the
// same place in every pairing lane's sequence of collectives, or a barrier meets a collective
// (a review's reproducer: two half-warps with full-mask shuffles, one with two in one block,
// the other with one before and one after a loop, got wrong values with a barrier before the
// first of each block). So only where every lane's sequence is the same: a kernel (its lanes
// start together) whose collectives all sit in one basic block outside every loop, under one
// guard (or none), that calls no function of the module with collectives and nothing it cannot
// see into (an indirect call, another unit's function). Every lane that executes a collective
// then executes that block's, once, in order, the barrier first. Exited lanes are not waited for (lanes that returned
// early, then a full-mask shuffle: run on the H100). The barrier has the first collective's
// guard, and its mask is that instruction's operand, read at the same point.
#pragma once

#include <set>
#include <string>

#include "instrument/FunctionChecks.h"

namespace cucatch::instrument {

// Whether `in` is a warp-synchronous collective with a member mask (its last operand).
bool isWarpCollective(const ptx::Instruction& in);

// The kernels of `module` where the barrier changes nothing (above).
std::set<std::string> warpResyncKernels(const ptx::Module& module);

// Adds the barrier to a kernel of checks.options.warpResyncKernels the check passes have
// checked (none where they added no check). Call after the passes, before finish.
void resyncWarpCollectives(FunctionChecks& checks);

// Block barriers in called functions. The same lost reconvergence (a check's failing branch
// never comes back, so a divergent branch around checks has no post-dominator) leaves a warp
// split when it calls a function that waits at a block barrier, and there the split warp broke
// a correct program: cooperative groups' cg::sync in a debug build is a call of a function
// holding `barrier.sync`, and a tree reduction with it in a loop after `if (tid < stride)`
// around checked accesses lost additions on the H100 (cuda-samples' histogram at -G; a
// __syncwarp() before the call, or the barrier inline, made it right). ptxas reconverges the warp
// at a barrier it sees in the function, not at one in a callee. So a bar.warp.sync on the full
// mask goes right before each call of a function that waits at a block barrier on every path
// from its entry: every lane that calls it arrives at a block barrier, which every non-exited
// thread of the block must reach, each lane of the warp passing a bar.warp.sync first wherever
// it reaches one through such a call (exited lanes are not waited for).
//
// The functions of `module` that wait at a block barrier (bar.sync, barrier.sync, bar.red,
// barrier.red; not bar.warp.sync or the non-blocking arrive), unguarded, before any branch,
// return or branch target from their entry: directly, or by calling such a function so.
std::set<std::string> blockBarrierFunctions(const ptx::Module& module);
// Adds the bar.warp.sync before each call of one of `waiting` (under the call's guard).
void resyncBeforeBarrierCalls(FunctionChecks& checks, const std::set<std::string>& waiting);

}  // namespace cucatch::instrument
