// reduce_sum and reduce_max: loops over the kept axes, an accumulator
// register per output element, loops over the reduced axes in row-major
// order (the interpreter's summation order). The operand is evaluated once
// per input element, so a fused elementwise chain below costs nothing extra.
//
// reduce_max follows the interpreter exactly: start at -inf, take v when
// v > acc or v is NaN (a missing value is never hidden by a larger one).
#include <algorithm>
#include <limits>

#include "compiler/loopgen/emitter.h"

namespace plastic::loopgen::detail {

using loops::Expr;
using loops::Index;

void Emitter::emit_reduce(const ir::Node* n, const Sink& sink) {
  const ir::Node* x = n->operand(0);
  const auto& axes = n->attrs().ints;
  ir::Shape reduced;
  std::vector<size_t> reduced_axes, kept_axes;
  for (size_t a = 0; a < x->shape().size(); ++a) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(a)) != axes.end()) {
      reduced.push_back(x->shape()[a]);
      reduced_axes.push_back(a);
    } else {
      kept_axes.push_back(a);
    }
  }
  bool is_max = n->op() == ir::Op::ReduceMax;
  for_each(n->shape(), [&](std::vector<Index> out) {
    std::vector<Index> in(x->shape().size());
    for (size_t k = 0; k < kept_axes.size(); ++k)
      in[kept_axes[k]] = out[k];
    loops::Var acc = var(is_max ? "max" : "acc", uniform(n));
    b.assign(acc, b.constant(is_max ? -std::numeric_limits<double>::infinity() : 0.0));
    for_each(reduced, [&](std::vector<Index> r) {
      for (size_t k = 0; k < reduced_axes.size(); ++k)
        in[reduced_axes[k]] = r[k];
      Expr v = eval(x, Pos::at_axes(in));
      Expr a = b.read(acc);
      b.assign(acc, is_max ? b.select(b.gt(v, a), v, b.select(b.ne(v, v), v, a)) : b.add(a, v));
    });
    sink(flat_of(Pos::at_axes(out), n->shape()), b.read(acc));
  });
}

} // namespace plastic::loopgen::detail
