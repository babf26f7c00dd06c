// Algebraic simplification (see simplify.h).
#include "compiler/passes/simplify.h"

#include <algorithm>

#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"

namespace plastic::passes {
using ir::Node;
using ir::Op;
using ir::OpCategory;

namespace {

bool is_broadcast(const Node* n) {
  return n->op() == Op::Broadcast;
}

// One local rewrite of an already rebuilt node, or the node itself.
const Node* rewrite_once(const Node* n) {
  switch (ir::op_category(n->op())) {
  case OpCategory::Unary: {
    const Node* x = n->operand(0);
    if (is_broadcast(x))
      return ir::broadcast(
          ir::unary(n->op(), x->operand(0), n->attrs().reals.empty() ? 0.0 : n->attrs().reals[0]),
          n->shape(), x->attrs().ints);
    break;
  }
  case OpCategory::Binary: {
    const Node *a = n->operand(0), *b = n->operand(1);
    if (is_broadcast(a) && is_broadcast(b) && a->attrs().ints == b->attrs().ints &&
        a->operand(0)->dtype() == b->operand(0)->dtype())
      return ir::broadcast(ir::binary(n->op(), a->operand(0), b->operand(0)), n->shape(),
                           a->attrs().ints);
    if (is_broadcast(a) && b->is_splat())
      return ir::broadcast(
          ir::binary(n->op(), a->operand(0), ir::splat_like(a->operand(0), b->attrs().reals[0])),
          n->shape(), a->attrs().ints);
    if (is_broadcast(b) && a->is_splat())
      return ir::broadcast(
          ir::binary(n->op(), ir::splat_like(b->operand(0), a->attrs().reals[0]), b->operand(0)),
          n->shape(), b->attrs().ints);
    if (n->op() == Op::Add && a == b) return ir::scale(a, 2.0);
    break;
  }
  case OpCategory::Contract: {
    bool any_neg = false;
    std::vector<const Node*> ops;
    for (const Node* o : n->operands()) {
      bool neg = o->op() == Op::Neg;
      any_neg = any_neg != neg; // parity of negations
      ops.push_back(neg ? o->operand(0) : o);
    }
    if (!std::equal(ops.begin(), ops.end(), n->operands().begin())) {
      const Node* c = ir::contract(n->attrs().str, ops);
      return any_neg ? ir::neg(c) : c;
    }
    break;
  }
  case OpCategory::Reduce: {
    const Node* x = n->operand(0);
    if (n->op() == Op::ReduceSum && x->op() == Op::Neg)
      return ir::neg(ir::reduce_sum(x->operand(0), n->attrs().ints));
    if (n->op() == Op::ReduceSum && is_broadcast(x)) {
      // Split the reduced axes into those the broadcast made (a scaling)
      // and those of the operand (a smaller sum).
      const auto& baxes = x->attrs().ints;
      const auto& raxes = n->attrs().ints;
      double count = 1;
      std::vector<int64_t> kept_map, inner_reduce;
      ir::Shape kept_shape;
      for (int64_t a = 0, k = 0; a < x->rank(); ++a) {
        bool reduced = std::find(raxes.begin(), raxes.end(), a) != raxes.end();
        auto it = std::find(baxes.begin(), baxes.end(), a);
        bool from_operand = it != baxes.end();
        if (reduced && !from_operand) count *= static_cast<double>(x->shape()[a]);
        if (reduced && from_operand) inner_reduce.push_back(it - baxes.begin());
        if (!reduced) {
          kept_shape.push_back(x->shape()[static_cast<size_t>(a)]);
          if (from_operand) kept_map.push_back(k);
          ++k;
        }
      }
      if (count == 1) break;
      const Node* inner = ir::reduce_sum(x->operand(0), inner_reduce);
      return ir::scale(ir::broadcast(inner, kept_shape, kept_map), count);
    }
    break;
  }
  default:
    break;
  }
  return n;
}

} // namespace

ir::Function simplify(const ir::Function& f) {
  std::vector<const Node*> roots = f.output_nodes();
  for (int round = 0; round < 16; ++round) {
    std::vector<const Node*> next =
        ir::rewrite(roots, [](const Node*, const Node* rebuilt) { return rewrite_once(rebuilt); });
    if (next == roots) break;
    roots = std::move(next);
  }
  return f.with_output_nodes(roots);
}

} // namespace plastic::passes
