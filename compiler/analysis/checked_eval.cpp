// evaluate_checked and the explanations of non-finite results (see checked_eval.h).
#include "compiler/analysis/checked_eval.h"

#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/traversal.h"

namespace plastic::analysis {

using interp::Tensor;

namespace {

bool finite(const Tensor<double>& t) {
  for (double v : t.data)
    if (!std::isfinite(v)) return false;
  return true;
}

size_t first_nonfinite(const Tensor<double>& t) {
  for (size_t i = 0; i < t.data.size(); ++i)
    if (!std::isfinite(t.data[i])) return i;
  return 0;
}

// The operand's element that produced element `index` of an elementwise
// result (a scalar operand is broadcast).
double element(const Tensor<double>& t, size_t index) {
  if (t.data.empty()) return NAN;
  return t.data.size() == 1 ? t.data[0] : t.data[std::min(index, t.data.size() - 1)];
}

std::string num(double v) {
  return fmt::format("{:.6g}", v);
}

} // namespace

std::string explain_nonfinite(const ir::Node* n, const std::vector<const Tensor<double>*>& operands,
                              size_t index) {
  auto x = [&](size_t k) { return k < operands.size() ? element(*operands[k], index) : NAN; };
  switch (n->op()) {
  case ir::Op::Log:
    return x(0) < 0 ? fmt::format("log of a negative value ({})", num(x(0))) : "log of zero";
  case ir::Op::Sqrt:
    return fmt::format("square root of a negative value ({})", num(x(0)));
  case ir::Op::Div:
    if (x(1) == 0) return fmt::format("division by zero ({} / 0)", num(x(0)));
    return fmt::format("overflow in a division ({} / {})", num(x(0)), num(x(1)));
  case ir::Op::Reciprocal:
    return "division by zero (1 / 0)";
  case ir::Op::Exp:
    return fmt::format("overflow in exp (exp({}))", num(x(0)));
  case ir::Op::PowC:
    return fmt::format("non-finite power ({} ^ {})", num(x(0)),
                       n->attrs().reals.empty() ? NAN : n->attrs().reals[0]);
  case ir::Op::Mul:
    return fmt::format("overflow in a product ({} * {})", num(x(0)), num(x(1)));
  case ir::Op::Square:
    return fmt::format("overflow in a square ({}^2)", num(x(0)));
  case ir::Op::Add:
  case ir::Op::Sub:
    return fmt::format("overflow in a {} ({}, {})", n->op() == ir::Op::Add ? "sum" : "difference",
                       num(x(0)), num(x(1)));
  case ir::Op::Contract:
  case ir::Op::ReduceSum:
    return "overflow in a sum of products (the values grew too large)";
  default:
    return fmt::format("non-finite result of {}", ir::op_name(n->op()));
  }
}

CheckedResult evaluate_checked(const ir::Function& f,
                               const std::map<std::string, Tensor<double>>& inputs) {
  std::unordered_map<const ir::Node*, Tensor<double>> values;
  for (const ir::Node* leaf : f.inputs()) {
    auto it = inputs.find(leaf->name());
    if (it == inputs.end())
      throw ir::IRError(fmt::format("no value for input {} of {}", leaf->name(), f.name()));
    values[leaf] = it->second;
  }
  std::vector<const ir::Node*> roots;
  for (const auto& out : f.outputs())
    roots.push_back(out.node);
  CheckedResult r;
  for (const ir::Node* n : ir::topo_order(roots)) {
    if (values.count(n)) {
      if (n->is_leaf() && !finite(values[n]))
        r.site = NonFiniteSite{n, fmt::format("the {} is already non-finite", n->name())};
      if (r.site) return r;
      continue;
    }
    std::vector<const Tensor<double>*> ops;
    for (const ir::Node* o : n->operands())
      ops.push_back(&values.at(o));
    Tensor<double> v = interp::evaluate_node<double>(n, ops);
    if (!finite(v)) {
      r.site = NonFiniteSite{n, explain_nonfinite(n, ops, first_nonfinite(v))};
      return r;
    }
    values[n] = std::move(v);
  }
  for (const auto& out : f.outputs())
    r.outputs.push_back(values.at(out.node));
  return r;
}

} // namespace plastic::analysis
