// Interpreter kernels of elementwise ops (unary, binary, comparisons,
// select), with the scalar semantics of ir/scalar_math.h.
#include "compiler/interp/eval_ops.h"
#include "compiler/ir/scalar_math.h"

namespace plastic::interp::detail {
using ir::OpCategory;

template <typename T> Tensor<T> eval_elementwise(const ir::Node* n, Args<T> args) {
  Tensor<T> out(n->shape());
  size_t size = out.data.size();
  const std::vector<T>& a = args[0]->data;
  switch (ir::op_category(n->op())) {
  case OpCategory::Unary: {
    double p = n->attrs().reals.empty() ? 0.0 : n->attrs().reals[0];
    for (size_t i = 0; i < size; ++i)
      out.data[i] = ir::apply_unary<T>(n->op(), a[i], p);
    break;
  }
  case OpCategory::Binary: {
    const std::vector<T>& b = args[1]->data;
    for (size_t i = 0; i < size; ++i)
      out.data[i] = ir::apply_binary<T>(n->op(), a[i], b[i]);
    break;
  }
  case OpCategory::Compare: {
    const std::vector<T>& b = args[1]->data;
    for (size_t i = 0; i < size; ++i)
      out.data[i] = ir::apply_compare<T>(n->op(), a[i], b[i]) ? T(1) : T(0);
    break;
  }
  case OpCategory::Select: {
    const std::vector<T>&b = args[1]->data, &c = args[2]->data;
    for (size_t i = 0; i < size; ++i)
      out.data[i] = a[i] != T(0) ? b[i] : c[i];
    break;
  }
  default:
    PLASTIC_CHECK(false, "eval_elementwise on {}", ir::op_name(n->op()));
  }
  return out;
}

template Tensor<double> eval_elementwise(const ir::Node*, Args<double>);
template Tensor<float> eval_elementwise(const ir::Node*, Args<float>);

} // namespace plastic::interp::detail
