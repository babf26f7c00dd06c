// Reference interpreter of the loop IR: the oracle the LLVM backend is tested
// against.
//
// Deliberately simple and independent of the backend: statements are walked
// recursively, each expression is evaluated per lane in double precision with
// the scalar semantics of loop_scalar_math.h (libm for transcendental ops),
// loads widen buffer elements to double and stores round to the function's
// element type. Lane sums add lanes in order 0..L-1. Indices are bounds-
// checked again at run time. Slow (~100x the JIT) and exact enough to judge
// the JIT at 1e-12 relative in f64.
#pragma once

#include "compiler/loops/args.h"
#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// Runs `fn` on the arguments (one slot per parameter, as for a packed
/// entry point). A NULL scratch pointer makes the interpreter use its own
/// arena. Throws InternalError on a wrong argument count or an out-of-range
/// access (the verifier makes the latter impossible).
void interpret(const Function& fn, const Args& args);

} // namespace plastic::loops
