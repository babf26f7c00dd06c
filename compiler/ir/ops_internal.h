// Shared plumbing of the factory files (ops_*.cpp); not a public header.
//
// Internal header of compiler/ir/: nothing outside that folder includes it.
#pragma once

#include "compiler/ir/error.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/type_infer.h"

namespace plastic::ir::detail {

/// Type-checks `op(operands; attrs)`; throws IRError("<op>: <why>") at the
/// Context's current location when ill-typed. Factories check before they
/// fold or simplify, so an ill-typed request fails even when it would fold.
inline TypeResult check(Op op, const std::vector<const Node*>& operands, const Attrs& attrs,
                        const Shape& declared = {}) {
  Context& ctx = operands.at(0)->context();
  for (const Node* o : operands)
    PLASTIC_CHECK(&o->context() == &ctx, "{} mixes nodes of different Contexts", op_name(op));
  TypeResult t = infer_type(op, operands, attrs, declared, DType::F64);
  if (!t.ok()) throw IRError(fmt::format("{}: {}", op_name(op), t.error), ctx.current_location());
  return t;
}

/// Creates the node of a checked request.
inline const Node* make(Op op, TypeResult t, std::vector<const Node*> operands, Attrs attrs) {
  Context& ctx = operands.at(0)->context();
  return ctx.make(op, t.dtype, std::move(t.shape), std::move(operands), std::move(attrs));
}

/// check + make.
inline const Node* finish(Op op, std::vector<const Node*> operands, Attrs attrs,
                          const Shape& declared = {}) {
  TypeResult t = check(op, operands, attrs, declared);
  return make(op, std::move(t), std::move(operands), std::move(attrs));
}

/// Element i of a constant (splat or dense).
inline double constant_at(const Node* c, int64_t i) {
  const auto& r = c->attrs().reals;
  return r.size() == 1 ? r[0] : r[static_cast<size_t>(i)];
}

/// Largest dense constant the factories fold eagerly; bigger ones are left
/// to the constant-folding pass.
constexpr int64_t kFoldLimit = 4096;

} // namespace plastic::ir::detail
