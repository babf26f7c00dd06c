// The lowering domain for the front end's Evaluator: values are IR nodes.
//
// The checker (dsl/shape_domain) has already proved every shape, so each
// rule here only maps a language operator to the IR's checked factories:
// NumPy broadcasting becomes explicit broadcasts, `@` and `outer` become
// einsum contractions with the batch axes broadcast first, losses become
// their stable formulas. Leaves come from a LeafMap the caller fills for
// the function being built (field, initial state, outputs, loss).
#pragma once

#include "compiler/ir/ir.h"
#include "dsl/evaluator.h"

#include <functional>

namespace plastic::irgen {

/// Makes the IR leaf for a language leaf (a parameter, state, path sample...).
using LeafMap = std::function<const ir::Node*(const dsl::Leaf&)>;

class IrDomain {
public:
  using Value = const ir::Node*;  ///< nullptr = an error (already reported)

  IrDomain(ir::Context& ctx, LeafMap leaves) : ctx_(ctx), leaves_(std::move(leaves)) {}

  Value error() { return nullptr; }
  bool failed(Value v) { return v == nullptr; }
  Value number(double v, dsl::Span) { return ctx_.constant(v); }
  Value leaf(const dsl::Leaf& leaf, dsl::Span) { return leaves_(leaf); }
  Value unary(Value a, dsl::Span) { return ir::neg(a); }
  Value binary(dsl::BinaryOp op, Value a, Value b, dsl::Span span);
  Value builtin(dsl::Builtin id, std::vector<Value>& args, const dsl::BuiltinConsts& c, dsl::Span span,
                const std::vector<dsl::Span>& arg_spans);
  Value index(Value base, const std::vector<dsl::IndexItem>& items, dsl::Span span);

private:
  Value loss(dsl::Builtin id, Value prediction, Value target);
  ir::Context& ctx_;
  LeafMap leaves_;
};

/// `A @ B` with the language's rules (dsl/shape.h): batched matvec,
/// batched matmul, vecmat or dot, batch axes broadcast.
const ir::Node* language_matmul(const ir::Node* a, const ir::Node* b);
/// outer(a, b) over the last axes, leading axes broadcast.
const ir::Node* language_outer(const ir::Node* a, const ir::Node* b);
/// 0, 1, ..., rank-1.
std::vector<int64_t> all_axes(const ir::Node* x);
/// einsum with NumPy's spec syntax, `...` included.
const ir::Node* language_einsum(const std::string& spec, const std::vector<const ir::Node*>& operands);

}  // namespace plastic::irgen
