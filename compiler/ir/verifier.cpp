// The IR verifier (see verifier.h).
#include "compiler/ir/verifier.h"

#include <unordered_set>

#include <fmt/format.h>

#include "compiler/ir/einsum.h"
#include "compiler/ir/error.h"
#include "compiler/ir/traversal.h"
#include "compiler/ir/type_infer.h"

namespace plastic::ir {

std::string verify_error(const Function& f) {
  std::unordered_set<const Node*> inputs(f.inputs().begin(), f.inputs().end());
  for (const Node* n : topo_order(f.output_nodes())) {
    if (&n->context() != &f.context()) return "node from another Context";
    TypeResult t = infer_type(n->op(), n->operands(), n->attrs(), n->shape(), n->dtype());
    if (!t.ok()) return fmt::format("{} node #{}: {}", op_name(n->op()), n->id(), t.error);
    if (t.dtype != n->dtype() || t.shape != n->shape())
      return fmt::format("{} node #{} has type {} but its operands give {}", op_name(n->op()),
                         n->id(), type_str(n->dtype(), n->shape()), type_str(t.dtype, t.shape));
    if (n->is_leaf() && !inputs.count(n))
      return fmt::format("leaf '{}' is not an input of '{}'", n->name(), f.name());
    if (n->op() == Op::Contract) {
      EinsumSpec s = EinsumSpec::parse(n->attrs().str);
      if (s.canonical().str() != n->attrs().str)
        return fmt::format("contract node #{} has non-canonical spec '{}'", n->id(),
                           n->attrs().str);
    }
    if (n->is_constant() && n->attrs().reals.size() != 1 &&
        static_cast<int64_t>(n->attrs().reals.size()) != n->numel())
      return fmt::format("constant node #{} has {} values for {} elements", n->id(),
                         n->attrs().reals.size(), n->numel());
  }
  return "";
}

void verify(const Function& f, std::string_view after_pass) {
  std::string err = verify_error(f);
  if (err.empty()) return;
  if (after_pass.empty())
    throw InternalError(fmt::format("IR verification failed in '{}': {}", f.name(), err));
  throw InternalError(
      fmt::format("IR verification failed in '{}' after pass '{}': {}", f.name(), after_pass, err));
}

} // namespace plastic::ir
