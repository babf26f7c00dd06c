// Product trees as tensor networks: the machinery of the
// reassociate-contractions pass (reassociate.h), kept apart from the pass's
// sweep so each file has one job. Internal header of compiler/passes.
//
// A product tree (contractions, multiplications, sums over axes,
// broadcasts, negations, constant factors, and in deep mode sums of
// low-rank terms) flattens into a Network: a sum of Terms, each a
// coefficient times factors whose axes carry labels. `build` contracts each
// term pairwise in a greedy order (smallest loop space first).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "compiler/ir/node.h"

namespace plastic::passes::detail {

using ir::Node;
using Labels = std::vector<int>;

/// Contractions, multiplications, negations, broadcasts, sums over axes.
bool is_product(const Node* n);
/// Additions and subtractions.
bool is_sum(const Node* n);

/// A network factor: an IR node whose axes carry these labels.
struct Factor {
  const Node* node;
  Labels labels;
};

// One product of factors times a coefficient. `summed` are the labels this
// term's own contractions and sums introduced (a summed label no factor
// carries multiplies the term by its size).
struct Term {
  double coef = 1;
  std::vector<Factor> factors;
  Labels summed;
};

/// A sum of terms with shared label sizes and output labels.
struct Network {
  std::vector<int64_t> size; // per label
  Labels output;
  std::vector<Term> terms;
};

/// How flatten_product sees the graph: live use counts, and the accepted
/// replacement of a node (identity if none).
using UseCounts = std::unordered_map<const Node*, int>;
using Resolve = std::function<const Node*(const Node*)>;

/// The network of the product tree rooted at `root`. Single-use products are
/// expanded; with `deep`, shared low-rank products and top-level sums too.
Network flatten_product(const Node* root, const UseCounts& uses, const Resolve& resolve, bool deep);

/// The IR of a network: each term contracted in greedy order, then summed.
const Node* build(const Network& net, const Node* root);

/// Work of one node's own op: loop-space size of a contraction, input size
/// of a reduction, output size of other arithmetic; broadcasts, reshapes,
/// leaves and constants are free.
double own_cost(const Node* n);

} // namespace plastic::passes::detail
