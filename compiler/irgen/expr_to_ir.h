// One resolved expression (dsl/resolved.h) to IR nodes.
//
// The checker has bound every name, inlined every call, folded every
// constant and proved every shape, so each rule here only maps a language
// operator to the IR's checked factories: NumPy broadcasting becomes
// explicit broadcasts, `@` and `outer` become einsum contractions with the
// batch axes broadcast first, losses become their stable formulas. Leaves
// come from a LeafMap the caller fills for the function being built (field,
// initial state, outputs, loss). No name lookup and no diagnostics: a
// node the IR disagrees with is a bug, reported as an InternalError.
#pragma once

#include "compiler/ir/ir.h"
#include "dsl/resolved.h"

#include <functional>

namespace plastic::irgen {

/// Makes the IR leaf for a language leaf (a parameter, state, path sample...).
using LeafMap = std::function<const ir::Node*(const dsl::Leaf&)>;

/// Builds the IR of resolved expressions, one function's leaves at a time.
class ExprToIr {
public:
  using Value = const ir::Node*;

  ExprToIr(ir::Context& ctx, LeafMap leaves) : ctx_(ctx), leaves_(std::move(leaves)) {}

  /// The IR of `e`'s value. Every node is built, in the order recorded
  /// (unused `let` values too), so IR nodes and first-use leaves come in
  /// the order the checker evaluated them.
  Value build(const dsl::ResolvedExpr& e);

private:
  Value node(const dsl::ResolvedNode& n, std::vector<Value>& args);
  Value binary(dsl::BinaryOp op, Value a, Value b);
  Value builtin(dsl::Builtin id, std::vector<Value>& args, const dsl::BuiltinConsts& c);
  Value index(Value base, const std::vector<dsl::IndexItem>& items);
  Value loss(dsl::Builtin id, Value prediction, Value target, double pos_weight);
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
const ir::Node* language_einsum(const std::string& spec,
                                const std::vector<const ir::Node*>& operands);

} // namespace plastic::irgen
