// Interpreter kernels of the composites, in their stable forms: softmax and
// logsumexp shift by the maximum; layernorm uses the biased variance
// (divide by n), as PyTorch's LayerNorm does.
#include <cmath>
#include <limits>

#include "compiler/interp/eval_ops.h"
#include "compiler/ir/error.h"

namespace plastic::interp::detail {
using ir::Op;

template <typename T> Tensor<T> eval_composite(const ir::Node* n, Args<T> args) {
  const Tensor<T>& x = *args[0];
  size_t axis = static_cast<size_t>(n->attrs().ints[0]);
  int64_t outer = 1, len = x.shape[axis], inner = 1;
  for (size_t a = 0; a < axis; ++a)
    outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.shape.size(); ++a)
    inner *= x.shape[a];
  Tensor<T> out(n->shape());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto xi = [&](int64_t j) { return x.data[static_cast<size_t>((o * len + j) * inner + i)]; };
      size_t base = static_cast<size_t>(o * len * inner + i);
      switch (n->op()) {
      case Op::Softmax:
      case Op::LogSumExp: {
        T m = -std::numeric_limits<T>::infinity();
        for (int64_t j = 0; j < len; ++j)
          m = std::max(m, xi(j));
        if (!std::isfinite(m)) m = T(0);
        T s = T(0);
        for (int64_t j = 0; j < len; ++j)
          s += std::exp(xi(j) - m);
        if (n->op() == Op::LogSumExp) {
          out.data[static_cast<size_t>(o * inner + i)] = m + std::log(s);
        } else {
          for (int64_t j = 0; j < len; ++j)
            out.data[base + static_cast<size_t>(j * inner)] = std::exp(xi(j) - m) / s;
        }
        break;
      }
      case Op::LayerNorm: {
        T mu = T(0), var = T(0);
        for (int64_t j = 0; j < len; ++j)
          mu += xi(j);
        mu /= static_cast<T>(len);
        for (int64_t j = 0; j < len; ++j)
          var += (xi(j) - mu) * (xi(j) - mu);
        var /= static_cast<T>(len);
        T rs = T(1) / std::sqrt(var + static_cast<T>(n->attrs().reals[0]));
        for (int64_t j = 0; j < len; ++j)
          out.data[base + static_cast<size_t>(j * inner)] = (xi(j) - mu) * rs;
        break;
      }
      default:
        PLASTIC_CHECK(false, "eval_composite on {}", ir::op_name(n->op()));
      }
    }
  }
  return out;
}

template Tensor<double> eval_composite(const ir::Node*, Args<double>);
template Tensor<float> eval_composite(const ir::Node*, Args<float>);

} // namespace plastic::interp::detail
