// The IR printer: a stable, parseable text form (MLIR's habit).
//
//   func @field {
//     %0 = time "t" [0] : f64[]
//     %1 = state "z" [0] : f64[3]
//     %2 = param "W" [0] : f64[3,3]
//     %3 = contract "ab,b->a" %2, %1 : f64[3]
//     %4 = tanh %3 : f64[3]
//     return "dz" = %4
//   }
//
// Canonical numbering: the inputs first, in input order, then every other
// node in depth-first post-order from the outputs (operands in order). The
// numbering depends only on the function's structure, so the text is the
// same in every run. An instruction is `%N = op`, then the op's attributes
// in a fixed layout (op_list.h: a "string", an [int list], a (real list)),
// the operands, `:` and the result type, and with PrintOptions::locations a
// trailing `loc("file":line:col)`. Reals print in the shortest form that
// reads back to the same double, so parse(print(f)) is f.
#pragma once

#include <ostream>
#include <string>

#include "compiler/ir/function.h"

namespace plastic::ir {

struct PrintOptions {
  bool locations = false; ///< append loc("file":line:col) where known
};

/// The text of `f` (ends with a newline).
std::string print(const Function& f, const PrintOptions& options = {});
/// Streams print(f).
std::ostream& operator<<(std::ostream& os, const Function& f);

} // namespace plastic::ir
