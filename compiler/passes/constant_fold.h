// Constant folding: every node whose operands are all constants becomes a
// constant, computed by the reference interpreter (so folding agrees with
// evaluation by construction). The factories already fold splat constants
// and small elementwise ops as they build; this pass folds the rest
// (contractions, reductions, composites of constants...), up to a size
// limit beyond which a literal would bloat the kernel more than it saves.
#pragma once

#include <cstdint>

#include "compiler/ir/function.h"

namespace plastic::passes {

/// The function with constant subexpressions of at most `max_elements`
/// elements folded.
ir::Function constant_fold(const ir::Function& f, int64_t max_elements = 1 << 16);

} // namespace plastic::passes
