// Interpreter kernels of structural ops: broadcast, reductions, reshape,
// slice, pad, concat. Each is one `walk` over an index space with the right
// strides (kernels.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/interp/eval_ops.h"
#include "compiler/ir/error.h"

namespace plastic::interp::detail {
using ir::Op;
using ir::OpCategory;

template <typename T> Tensor<T> eval_structural(const ir::Node* n, Args<T> args) {
  const Tensor<T>& x = *args[0];
  const auto& ints = n->attrs().ints;
  Tensor<T> out(n->shape());
  std::vector<int64_t> xs = ir::strides_of(x.shape), os = ir::strides_of(n->shape());
  switch (ir::op_category(n->op())) {
  case OpCategory::Broadcast: {
    // Walk the output; the input advances only along the mapped axes.
    std::vector<int64_t> in(n->shape().size(), 0);
    for (size_t i = 0; i < ints.size(); ++i)
      in[static_cast<size_t>(ints[i])] = xs[i];
    walk(n->shape(), {os, in}, [&](const int64_t* o) { out.data[o[0]] = x.data[o[1]]; });
    break;
  }
  case OpCategory::Reduce: {
    // Walk the input; the output advances only along the kept axes.
    std::vector<int64_t> to(x.shape.size(), 0);
    for (size_t a = 0, k = 0; a < x.shape.size(); ++a)
      if (std::find(ints.begin(), ints.end(), static_cast<int64_t>(a)) == ints.end())
        to[a] = os[k++];
    if (n->op() == Op::ReduceSum) {
      walk(x.shape, {xs, to}, [&](const int64_t* o) { out.data[o[1]] += x.data[o[0]]; });
    } else {
      std::fill(out.data.begin(), out.data.end(), -std::numeric_limits<T>::infinity());
      walk(x.shape, {xs, to}, [&](const int64_t* o) {
        T v = x.data[o[0]], &m = out.data[o[1]];
        if (std::isnan(v) || v > m) m = v; // NaN wins, so missing data is never hidden
      });
    }
    break;
  }
  case OpCategory::Reshape:
    out.data = x.data;
    break;
  case OpCategory::Slice: {
    int64_t base = 0;
    for (size_t i = 0; i < ints.size(); ++i)
      base += ints[i] * xs[i];
    walk(n->shape(), {os, xs}, [&](const int64_t* o) { out.data[o[0]] = x.data[base + o[1]]; });
    break;
  }
  case OpCategory::Pad: {
    int64_t base = 0;
    for (size_t i = 0; i < x.shape.size(); ++i)
      base += ints[i] * os[i];
    walk(x.shape, {xs, os}, [&](const int64_t* o) { out.data[base + o[1]] = x.data[o[0]]; });
    break;
  }
  case OpCategory::Concat: {
    size_t axis = static_cast<size_t>(ints[0]);
    int64_t at = 0;
    for (const Tensor<T>* part : args) {
      int64_t base = at * os[axis];
      walk(part->shape, {ir::strides_of(part->shape), os},
           [&](const int64_t* o) { out.data[base + o[1]] = part->data[o[0]]; });
      at += part->shape[axis];
    }
    break;
  }
  default:
    PLASTIC_CHECK(false, "eval_structural on {}", ir::op_name(n->op()));
  }
  return out;
}

template Tensor<double> eval_structural(const ir::Node*, Args<double>);
template Tensor<float> eval_structural(const ir::Node*, Args<float>);

} // namespace plastic::interp::detail
