// Re-association of products: contracting through outer products.
//
// A tree of products — contractions, elementwise multiplications,
// broadcasts, negations and constant factors, whose inner nodes have no
// other use — is one tensor network: a list of factors with labelled axes.
// This pass flattens each such tree and re-contracts its factors pairwise in
// a cheaper order (greedy by loop-space size, as opt_einsum's greedy
// strategy), when that is cheaper than the tree as written. The case that
// matters is the fast-weight adjoint: the VJP of W' = (v − W k) ⊗ k makes
// terms like ((a ⊗ b) · c), O(d²), which become a (b · c), O(d).
// Shared inner nodes are kept as factors (they are computed anyway).
#pragma once

#include "compiler/ir/function.h"

namespace plastic::passes {

/// The function with every product tree re-associated where cheaper.
ir::Function reassociate_contractions(const ir::Function& f);

}  // namespace plastic::passes
