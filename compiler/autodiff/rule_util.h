// Small helpers shared by the rule files (internal header).
//
// Internal header of compiler/autodiff/: nothing outside that folder includes it.
#pragma once

#include "compiler/ir/ops.h"

namespace plastic::ad::detail {

using ir::Node;

/// a + b where null is zero.
inline const Node* add_or(const Node* a, const Node* b) {
  if (!a) return b;
  if (!b) return a;
  return ir::add(a, b);
}

/// t, or zeros shaped like `like` when t is null.
inline const Node* or_zeros(const Node* t, const Node* like) {
  return t ? t : ir::zeros_like(like);
}

/// Broadcasts `v` (x's shape without `axis`) back along `axis` to x's shape.
inline const Node* along(const Node* v, const Node* x, int64_t axis) {
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < x->rank(); ++a)
    if (a != axis) axes.push_back(a);
  return ir::broadcast(v, x->shape(), axes);
}

/// x * s for a scalar node s (shape []), broadcast.
inline const Node* times_scalar(const Node* x, const Node* s) {
  return ir::mul(x, ir::broadcast(s, x->shape(), {}));
}

} // namespace plastic::ad::detail
