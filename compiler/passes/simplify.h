// Algebraic simplification.
//
// Rebuilds every node through its checked factory (which folds splat
// constants, orders commutative operands and applies the exact identities
// listed in ir/ops.h), then applies rewrites that need more context than
// one factory call:
//   * elementwise ops move below broadcasts: f(bcast x) → bcast f(x), and
//     bcast a ⊙ bcast b → bcast (a ⊙ b) — work on the small tensor;
//   * negations move out of contractions and sums, where add/sub absorb
//     them: contract(−a, b) → −contract(a, b), Σ(−x) → −Σx;
//   * a sum over broadcast axes is a scaling: Σ_b bcast_b(x) → n_b · x;
//   * x + x → 2x.
// It iterates until nothing changes. All rewrites are exact except the
// last-but-one, which replaces n additions by one multiplication.
#pragma once

#include "compiler/ir/function.h"

namespace plastic::passes {

/// The simplified function (same inputs and output names).
ir::Function simplify(const ir::Function& f);

} // namespace plastic::passes
