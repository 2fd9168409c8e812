// Warp-synchronous instructions after checks: a bar.warp.sync on the same member mask right
// before the first of them in each basic block of a checked function.
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
// only the first of a block gets one.
//
// It changes nothing a correct program sees. Each of these instructions already makes the
// executing thread wait until every non-exited thread of its member mask has executed one
// with the same mask (on sm_70 and later, not necessarily the same instruction), and
// bar.warp.sync waits for the same threads: those threads reach the barrier, whichever
// instruction they are at, before they reach the collective. Exited threads in the mask are
// not waited for (lanes that returned early, then a full-mask shuffle: run on the H100).
// The barrier has the instruction's guard, and its mask is the instruction's operand, read
// at the same point.
#pragma once

#include "instrument/FunctionChecks.h"

namespace cucatch::instrument {

// Whether `in` is a warp-synchronous collective with a member mask (its last operand).
bool isWarpCollective(const ptx::Instruction& in);

// Adds the barriers to a function the check passes have checked (none where they added no
// check, or with checks.options.warpResync off). Call after the passes, before finish.
void resyncWarpCollectives(FunctionChecks& checks);

}  // namespace cucatch::instrument
