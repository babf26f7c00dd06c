// Re-association of products: contracting through outer products.
//
// A tree of products — contractions, elementwise multiplications, sums over
// axes, broadcasts, negations and constant factors — is a tensor network: a
// list of factors with labelled axes. This pass flattens each tree and
// re-contracts its factors pairwise in a cheaper order (greedy by loop-space
// size, like opt_einsum's greedy strategy). It also distributes a
// contraction over a sum whose terms are low-rank (outer products,
// broadcasts), contracting through each term instead of materialising it.
//
// That is what the fast-weight models need: in the field and its VJP,
// (a ⊗ b)·c becomes a (b·c), O(d) instead of O(d²); in a fused RK step, the
// stage state W + h·a·β(v − W k)⊗k contracted with k' becomes
// W k' + (h a β (k·k')) (v − W k), so the d×d stage matrix is never formed.
//
// Two candidate networks are planned for every product root: the tree as
// written, with shared nodes kept as opaque factors (they are computed
// anyway), and a deep one that also expands shared low-rank products and
// top-level sums. The cheapest plan replaces the root when it is cheaper
// than the tree as written (cost = loop-space sizes of contractions plus
// elements touched by elementwise ops). Results equal the original up to
// floating-point re-association.
#pragma once

#include "compiler/ir/function.h"

namespace plastic::passes {

/// The function with every product tree re-associated where cheaper.
ir::Function reassociate_contractions(const ir::Function& f);

} // namespace plastic::passes
