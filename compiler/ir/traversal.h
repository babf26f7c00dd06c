// Walking and rewriting DAGs of nodes.
//
// All walks are iterative (no recursion: fields unrolled over many solver
// stages make deep graphs) and deterministic: depth-first from the roots in
// order, operands in order, so orders are identical across runs.
#pragma once

#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "compiler/ir/node.h"

namespace plastic::ir {

/// Every node reachable from `roots`, operands before users (post-order).
/// Nodes for which `stop` returns true are listed but not descended into.
std::vector<const Node*> topo_order(std::span<const Node* const> roots,
                                    const std::function<bool(const Node*)>& stop = {});

/// How many times each node is used as an operand within the DAG of `roots`,
/// plus once per appearance in `roots` itself.
std::unordered_map<const Node*, int> use_counts(std::span<const Node* const> roots);

/// Bottom-up rewrite. Each node is first rebuilt on its rewritten operands
/// (through its checked factory; the same node if nothing changed), then
/// `visit(original, rebuilt)` picks the replacement. Returns the rewritten
/// roots. Shared nodes are visited once.
std::vector<const Node*>
rewrite(std::span<const Node* const> roots,
        const std::function<const Node*(const Node* original, const Node* rebuilt)>& visit);

/// Replaces the keys of `replace` by their values wherever they occur under
/// `roots` and rebuilds everything above them (folding and simplifying on
/// the way). Nodes below a replaced node are not visited.
std::vector<const Node*> substitute(std::span<const Node* const> roots,
                                    const std::unordered_map<const Node*, const Node*>& replace);

} // namespace plastic::ir
