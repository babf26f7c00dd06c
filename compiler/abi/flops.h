// Floating-point operation counts of loop-IR kernels (`plastic bench-kernels`).
//
// Counted from the loop IR as written, per call (one tile): every arithmetic
// expression node reachable from a statement counts once per execution of
// the statement (loop trip counts multiply), times L when varying; fma
// counts 2, a transcendental or other unary op 1, an accumulating store 1
// and a lane-sum store L. Loads, selects and compares count 0. Shared
// subexpressions within one statement count once (LLVM computes them once).
#pragma once

#include "compiler/loops/loop_ir.h"

namespace plastic::abi {

/// Floating-point operations of one call of `fn`, all L lanes.
double count_flops(const loops::Function& fn);

} // namespace plastic::abi
