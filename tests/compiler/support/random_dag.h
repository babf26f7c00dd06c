// Random IR functions for fuzz tests: DAGs over vectors, matrices and
// scalars built only from smooth ops, whose nodes are reused as operands
// many times (so they share subexpressions).
#pragma once

#include <fmt/format.h>

#include "compiler/ir/ops.h"
#include "tests/compiler/support/ir_test_util.h"

namespace plastic::test {

using namespace plastic::ir;

// A random function over vectors, matrices and scalars whose nodes are
// reused as operands many times (so the DAG shares subexpressions).
inline Function random_dag(Context& ctx, Rng& rng, int size) {
  std::vector<const Node*> pool, inputs;
  const std::vector<Shape> shapes{{3}, {4}, {3, 4}, {4, 3}, {3, 3}, {}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    inputs.push_back(ctx.param(fmt::format("p{}", i), shapes[i]));
    pool.push_back(inputs.back());
  }
  pool.push_back(ctx.constant(0.5, {3}));
  pool.push_back(ctx.constant({1, -2, 3}, {3}));
  pool.push_back(ctx.constant({0.25, 0.5, -1, 2, 1, 0, 0, 1, 3, -3, 0.5, 0.125}, {3, 4}));
  auto pick = [&] { return pool[rng() % pool.size()]; };
  auto pick_shape = [&](const Shape& s) -> const Node* {
    std::vector<const Node*> c;
    for (const Node* n : pool)
      if (n->shape() == s) c.push_back(n);
    return c.empty() ? nullptr : c[rng() % c.size()];
  };
  while (static_cast<int>(pool.size()) < size) {
    const Node* x = pick();
    const Node* y = nullptr;
    switch (rng() % 14) {
    case 0:
      y = tanh(x);
      break;
    case 1:
      y = sigmoid(x);
      break;
    case 2:
      y = neg(sin(x));
      break;
    case 3:
      y = scale(x, 0.5 + static_cast<double>(rng() % 3));
      break;
    case 4:
    case 5: {
      const Node* z = pick_shape(x->shape());
      Op ops[] = {Op::Add, Op::Sub, Op::Mul};
      y = binary(ops[rng() % 3], x, z);
      break;
    }
    case 6:
      if (x->rank() == 2)
        if (const Node* v = pick_shape({x->shape()[1]})) y = matvec(x, v);
      break;
    case 7:
      if (x->rank() == 1)
        if (const Node* v = pick_shape({static_cast<int64_t>(3 + rng() % 2)})) y = outer(x, v);
      break;
    case 8:
      if (x->rank() == 1)
        y = broadcast(x, {2, x->shape()[0]}, {1});
      else if (x->rank() == 0)
        y = broadcast(x, {3}, {});
      if (y && y->rank() == 2) y = reduce_sum(mul(y, y), {0});
      break;
    case 9:
      if (x->rank() >= 1) y = reduce_sum(x, {static_cast<int64_t>(rng() % x->shape().size())});
      break;
    case 10:
      if (x->rank() == 1)
        y = softmax(x, 0);
      else if (x->rank() == 2)
        y = layernorm(x, 1, 1e-5);
      break;
    case 11:
      if (x->rank() == 2) y = transpose(x, {1, 0});
      break;
    case 12:
      if (x->rank() == 2)
        if (const Node* m = pick_shape({x->shape()[1], 3})) y = matmul(x, m);
      break;
    case 13:
      if (x->rank() == 1) y = mul(x, splat_like(x, static_cast<double>(rng() % 2)));
      break;
    }
    if (y) pool.push_back(y);
  }
  std::vector<Output> outs;
  for (int i = 0; i < 3; ++i)
    outs.push_back({fmt::format("y{}", i), pool[pool.size() - 1 - static_cast<size_t>(i)]});
  outs.push_back({"r", pool[shapes.size() + rng() % (pool.size() - shapes.size())]});
  return Function("dag", inputs, outs);
}

} // namespace plastic::test
