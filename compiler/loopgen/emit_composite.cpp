// Softmax, logsumexp and layernorm in the stable forms of the interpreter
// (compiler/interp/eval_composite.cpp), one row at a time along the
// composite's axis, with the row statistics in registers:
//   softmax/logsumexp: m = max (non-finite -> 0), s = Σ exp(x - m);
//                      softmax = exp(x - m) / s, logsumexp = m + log s;
//   layernorm:         mu = Σx / n, var = Σ(x - mu)² / n (biased),
//                      (x - mu) · 1/sqrt(var + eps).
// The max is taken as std::max does (a NaN element is skipped), so a row
// with a NaN gives NaN through the sum exactly as in the interpreter.
#include <limits>

#include "compiler/loopgen/emitter.h"

namespace plastic::loopgen::detail {

using ir::Op;
using loops::Expr;
using loops::Index;

void Emitter::emit_composite(const ir::Node* n, const Sink& sink) {
  const ir::Node* x = n->operand(0);
  size_t axis = static_cast<size_t>(n->axis());
  int64_t len = x->shape()[axis];
  ir::Shape rows = x->shape();
  rows.erase(rows.begin() + static_cast<long>(axis));
  bool u = uniform(n);
  const double inf = std::numeric_limits<double>::infinity();

  for_each(rows, [&](std::vector<Index> row) {
    // Position of element j of this row in x (and in a same-shaped output).
    auto at = [&](const Index& j) {
      std::vector<Index> axes = row;
      axes.insert(axes.begin() + static_cast<long>(axis), j);
      return Pos::at_axes(std::move(axes));
    };
    auto x_at = [&](const Index& j) { return eval(x, at(j)); };
    auto over_row = [&](const std::function<void(Index)>& body) {
      for_each({len}, [&](std::vector<Index> j) { body(j[0]); });
    };

    if (n->op() == Op::Softmax || n->op() == Op::LogSumExp) {
      loops::Var m = var("rowmax", u), s = var("rowsum", u);
      b.assign(m, b.constant(-inf));
      over_row([&](const Index& j) {
        Expr v = x_at(j), cur = b.read(m);
        b.assign(m, b.select(b.gt(v, cur), v, cur));
      });
      Expr cur = b.read(m);
      b.assign(m, b.select(b.lt(b.abs(cur), b.constant(inf)), cur, b.constant(0)));
      b.assign(s, b.constant(0));
      // Softmax keeps exp(x - m) of the row in a borrowed scratch row, so
      // each exponential is computed once (it dominated small softmaxes).
      const bool keep = n->op() == Op::Softmax && scratch_;
      loops::Buffer e =
          keep ? scratch_->acquire(u ? loops::Lanes::Uniform : loops::Lanes::Varying, len)
               : loops::Buffer{};
      over_row([&](const Index& j) {
        Expr ej = b.exp(b.sub(x_at(j), b.read(m)));
        if (keep) b.store(e, j, ej);
        b.assign(s, b.add(b.read(s), ej));
      });
      if (n->op() == Op::LogSumExp) {
        sink(flat_of(Pos::at_axes(row), n->shape()), b.add(b.read(m), b.log(b.read(s))));
      } else {
        over_row([&](const Index& j) {
          Expr ej = keep ? b.load(e, j) : b.exp(b.sub(x_at(j), b.read(m)));
          sink(flat_of(at(j), n->shape()), b.div(ej, b.read(s)));
        });
      }
      if (keep) scratch_->release(e);
      return;
    }

    // LayerNorm.
    loops::Var mu = var("mean", u), var_ = var("var", u), rs = var("rstd", u);
    Expr n_len = b.constant(static_cast<double>(len));
    b.assign(mu, b.constant(0));
    over_row([&](const Index& j) { b.assign(mu, b.add(b.read(mu), x_at(j))); });
    b.assign(mu, b.div(b.read(mu), n_len));
    b.assign(var_, b.constant(0));
    over_row([&](const Index& j) {
      Expr d = b.sub(x_at(j), b.read(mu));
      b.assign(var_, b.add(b.read(var_), b.mul(d, d)));
    });
    b.assign(var_, b.div(b.read(var_), n_len));
    b.assign(rs, b.reciprocal(b.sqrt(b.add(b.read(var_), b.constant(n->attrs().reals.at(0))))));
    over_row([&](const Index& j) {
      sink(flat_of(at(j), n->shape()), b.mul(b.sub(x_at(j), b.read(mu)), b.read(rs)));
    });
  });
}

} // namespace plastic::loopgen::detail
