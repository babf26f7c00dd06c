// Constant folding (see constant_fold.h).
#include "compiler/passes/constant_fold.h"

#include "compiler/interp/interpreter.h"
#include "compiler/ir/traversal.h"

namespace plastic::passes {
using ir::Node;

namespace {

template <typename T> const Node* fold(const Node* n) {
  std::vector<interp::Tensor<T>> values;
  for (const Node* o : n->operands())
    values.push_back(interp::evaluate_node<T>(o, {}));
  std::vector<const interp::Tensor<T>*> args;
  args.reserve(values.size());
  for (const auto& v : values)
    args.push_back(&v);
  interp::Tensor<T> r = interp::evaluate_node<T>(n, args);
  return n->context().constant(std::vector<double>(r.data.begin(), r.data.end()), n->shape(),
                               n->dtype());
}

} // namespace

ir::Function constant_fold(const ir::Function& f, int64_t max_elements) {
  auto visit = [&](const Node*, const Node* n) -> const Node* {
    if (n->num_operands() == 0 || n->numel() > max_elements) return n;
    for (const Node* o : n->operands())
      if (!o->is_constant()) return n;
    // Masks compute in f64 like everything else; f32 nodes fold in float.
    return n->dtype() == ir::DType::F32 ? fold<float>(n) : fold<double>(n);
  };
  return f.with_output_nodes(ir::rewrite(f.output_nodes(), visit));
}

} // namespace plastic::passes
