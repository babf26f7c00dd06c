// Factories of the composites (softmax, logsumexp, layernorm) and the
// generic `rebuild` used by every rewriter.
//
// Composites are single nodes, not expansions, so that they keep their
// numerically stable evaluation and their compact derivative rules.
#include <fmt/format.h>

#include "compiler/ir/ops_internal.h"

namespace plastic::ir {
using detail::finish;

const Node* softmax(const Node* x, int64_t axis) {
  return finish(Op::Softmax, {x}, Attrs{{}, {axis}, {}});
}

const Node* logsumexp(const Node* x, int64_t axis) {
  return finish(Op::LogSumExp, {x}, Attrs{{}, {axis}, {}});
}

const Node* layernorm(const Node* x, int64_t axis, double eps) {
  return finish(Op::LayerNorm, {x}, Attrs{{}, {axis}, {eps}});
}

const Node* rebuild(const Node* n, std::span<const Node* const> operands) {
  PLASTIC_CHECK(operands.size() == n->num_operands(), "rebuild of {} with {} operands",
                op_name(n->op()), operands.size());
  if (std::equal(operands.begin(), operands.end(), n->operands().begin())) return n;
  const Attrs& a = n->attrs();
  auto x = [&](size_t i) { return operands[i]; };
  switch (op_category(n->op())) {
  case OpCategory::Leaf:
  case OpCategory::Constant:
    return n;
  case OpCategory::Unary:
    return unary(n->op(), x(0), a.reals.empty() ? 0.0 : a.reals[0]);
  case OpCategory::Binary:
    return binary(n->op(), x(0), x(1));
  case OpCategory::Compare:
    return compare(n->op(), x(0), x(1));
  case OpCategory::Select:
    return select(x(0), x(1), x(2));
  case OpCategory::Broadcast:
    return broadcast(x(0), n->shape(), a.ints);
  case OpCategory::Reduce:
    return n->op() == Op::ReduceSum ? reduce_sum(x(0), a.ints) : reduce_max(x(0), a.ints);
  case OpCategory::Contract:
    return contract(a.str, std::vector<const Node*>(operands.begin(), operands.end()));
  case OpCategory::Reshape:
    return reshape(x(0), n->shape());
  case OpCategory::Slice:
    return slice(x(0), a.ints, n->shape());
  case OpCategory::Pad: {
    size_t r = a.ints.size() / 2;
    return pad(x(0), std::vector<int64_t>(a.ints.begin(), a.ints.begin() + static_cast<long>(r)),
               std::vector<int64_t>(a.ints.begin() + static_cast<long>(r), a.ints.end()));
  }
  case OpCategory::Concat:
    return concat(std::vector<const Node*>(operands.begin(), operands.end()), a.ints[0]);
  case OpCategory::Composite:
    switch (n->op()) {
    case Op::Softmax:
      return softmax(x(0), a.ints[0]);
    case Op::LogSumExp:
      return logsumexp(x(0), a.ints[0]);
    case Op::LayerNorm:
      return layernorm(x(0), a.ints[0], a.reals[0]);
    default:
      break;
    }
    break;
  }
  PLASTIC_CHECK(false, "rebuild: no factory for {}", op_name(n->op()));
  return n;
}

} // namespace plastic::ir
