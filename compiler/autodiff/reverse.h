// Reverse mode (VJP) on IR nodes: symbolic, producing new IR.
//
// Walks the DAG once in reverse topological order, asking each node's rule
// (rules.h) for its operands' cotangents and summing cotangents of shared
// nodes. Only nodes on a path from `wrt` to a seeded output are
// differentiated, and structurally zero cotangents are never materialised
// inside the walk.
#pragma once

#include <span>
#include <vector>

#include "compiler/ir/node.h"

namespace plastic::ad {

using ir::Node;

/// Cotangents of `wrt` (distinct nodes, usually leaves) given cotangents for
/// `outputs` (same count; null = zero, shapes equal to the outputs'). An
/// entry is null when wrt[i] influences no seeded output.
std::vector<const Node*> vjp(std::span<const Node* const> outputs,
                             std::span<const Node* const> cotangents,
                             std::span<const Node* const> wrt);

/// Same, with zero cotangents materialised as zero constants.
std::vector<const Node*> vjp_dense(std::span<const Node* const> outputs,
                                   std::span<const Node* const> cotangents,
                                   std::span<const Node* const> wrt);

} // namespace plastic::ad
