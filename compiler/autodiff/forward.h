// Forward mode (JVP) on IR nodes: symbolic, producing new IR.
//
// Walks the DAG once in topological order, pushing tangents through each
// node's rule (rules.h); nodes that do not depend on `wrt` get no tangent.
#pragma once

#include <span>
#include <vector>

#include "compiler/ir/node.h"

namespace plastic::ad {

using ir::Node;

/// Tangents of `outputs` given tangents of `wrt` (same count; null = zero).
/// An entry is null when the output does not depend on any wrt node.
std::vector<const Node*> jvp(std::span<const Node* const> outputs, std::span<const Node* const> wrt,
                             std::span<const Node* const> tangents);

/// Same, with zero tangents materialised as zero constants.
std::vector<const Node*> jvp_dense(std::span<const Node* const> outputs,
                                   std::span<const Node* const> wrt,
                                   std::span<const Node* const> tangents);

} // namespace plastic::ad
