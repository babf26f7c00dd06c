// The reference interpreter's driver: evaluates nodes in topological order
// and dispatches each to its kernel family (see interpreter.h).
#include "compiler/interp/interpreter.h"

#include <fmt/format.h>

#include "compiler/interp/eval_ops.h"
#include "compiler/ir/error.h"
#include "compiler/ir/traversal.h"

namespace plastic::interp {
using ir::Node;
using ir::OpCategory;

template <typename T>
Tensor<T> evaluate_node(const Node* n, std::span<const Tensor<T>* const> operands) {
  switch (ir::op_category(n->op())) {
  case OpCategory::Leaf:
    PLASTIC_CHECK(false, "evaluate_node on leaf '{}' without a value", n->name());
    break;
  case OpCategory::Constant: {
    const auto& r = n->attrs().reals;
    Tensor<T> out(n->shape());
    for (size_t i = 0; i < out.data.size(); ++i)
      out.data[i] = static_cast<T>(r.size() == 1 ? r[0] : r[i]);
    return out;
  }
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::Select:
    return detail::eval_elementwise<T>(n, operands);
  case OpCategory::Contract:
    return detail::eval_contract<T>(n, operands);
  case OpCategory::Composite:
    return detail::eval_composite<T>(n, operands);
  default:
    return detail::eval_structural<T>(n, operands);
  }
  return {};
}

template <typename T>
std::vector<Tensor<T>> evaluate_nodes(std::span<const Node* const> roots,
                                      const std::unordered_map<const Node*, Tensor<T>>& leaves) {
  std::vector<const Node*> order = ir::topo_order(roots);
  std::unordered_map<const Node*, size_t> index;
  std::vector<Tensor<T>> values(order.size());
  // Release each value after its last use: fields unrolled over many stages
  // would otherwise hold every intermediate at once.
  std::unordered_map<const Node*, size_t> last_use;
  for (size_t i = 0; i < order.size(); ++i)
    for (const Node* o : order[i]->operands())
      last_use[o] = i;
  for (const Node* r : roots)
    last_use[r] = order.size();

  std::vector<const Tensor<T>*> args;
  for (size_t i = 0; i < order.size(); ++i) {
    const Node* n = order[i];
    index[n] = i;
    if (n->is_leaf()) {
      auto it = leaves.find(n);
      if (it == leaves.end())
        throw ir::IRError(
            fmt::format("no value given for {} '{}'", ir::op_name(n->op()), n->name()));
      values[i] = it->second;
      continue;
    }
    args.clear();
    for (const Node* o : n->operands())
      args.push_back(&values[index.at(o)]);
    values[i] = evaluate_node<T>(n, args);
    for (const Node* o : n->operands())
      if (last_use.at(o) == i) values[index.at(o)] = Tensor<T>();
  }
  std::vector<Tensor<T>> out;
  for (const Node* r : roots)
    out.push_back(values[index.at(r)]);
  return out;
}

template <typename T>
std::vector<Tensor<T>> evaluate(const ir::Function& f, std::span<const Tensor<T>> inputs) {
  if (inputs.size() != f.inputs().size())
    throw ir::IRError(fmt::format("function '{}' takes {} inputs, {} given", f.name(),
                                  f.inputs().size(), inputs.size()));
  std::unordered_map<const Node*, Tensor<T>> leaves;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node* in = f.inputs()[i];
    if (inputs[i].shape != in->shape() ||
        static_cast<int64_t>(inputs[i].data.size()) != in->numel())
      throw ir::IRError(fmt::format("input '{}' of '{}' must be {}, got shape {} with {} values",
                                    in->name(), f.name(), ir::type_str(in->dtype(), in->shape()),
                                    ir::shape_str(inputs[i].shape), inputs[i].data.size()));
    leaves.emplace(in, inputs[i]);
  }
  std::vector<const Node*> roots = f.output_nodes();
  return evaluate_nodes<T>(roots, leaves);
}

template <typename T>
std::vector<Tensor<T>> evaluate(const ir::Function& f,
                                const std::map<std::string, Tensor<T>>& inputs) {
  std::vector<Tensor<T>> ordered;
  for (const Node* in : f.inputs()) {
    auto it = inputs.find(in->name());
    if (it == inputs.end())
      throw ir::IRError(fmt::format("no value given for input '{}' of '{}'", in->name(), f.name()));
    ordered.push_back(it->second);
  }
  if (inputs.size() != ordered.size())
    throw ir::IRError(
        fmt::format("'{}' was given values for names that are not its inputs", f.name()));
  return evaluate<T>(f, std::span<const Tensor<T>>(ordered));
}

// NOLINTBEGIN(bugprone-macro-parentheses): T is a type in template arguments
#define PLASTIC_INSTANTIATE(T)                                                                     \
  template Tensor<T> evaluate_node(const Node*, std::span<const Tensor<T>* const>);                \
  template std::vector<Tensor<T>> evaluate_nodes(                                                  \
      std::span<const Node* const>, const std::unordered_map<const Node*, Tensor<T>>&);            \
  template std::vector<Tensor<T>> evaluate(const ir::Function&, std::span<const Tensor<T>>);       \
  template std::vector<Tensor<T>> evaluate(const ir::Function&,                                    \
                                           const std::map<std::string, Tensor<T>>&);
// NOLINTEND(bugprone-macro-parentheses)
PLASTIC_INSTANTIATE(double)
PLASTIC_INSTANTIATE(float)
#undef PLASTIC_INSTANTIATE

} // namespace plastic::interp
