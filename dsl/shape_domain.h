// The checker's domain for the Evaluator: values are shapes.
//
// Evaluating an expression here computes its static shape and reports every
// shape error with the expression's span and a hint. Losses and labels are
// kinds of their own so `cross_entropy(logits, y)` can be checked, and a
// per-observation flag keeps final-time and per-observation quantities apart.
// While it checks, it records each value it computes as a node of the
// expression's resolved form (resolved.h), the form irgen builds IR from.
//
// Internal header of dsl/: the checker uses it.
#pragma once

#include "dsl/evaluator.h"

namespace plastic::dsl {

struct ShapeValue {
  enum Kind { Error, Tensor, Label, Loss } kind = Error;
  Shape shape;
  bool per_observation = false;
  int64_t classes = 0;            ///< labels
  std::optional<double> constant; ///< a literal number (for scalar folding of literals only)
  int node = -1; ///< its node in the expression being recorded (ShapeDomain::record_into)
};

class ShapeDomain {
public:
  using Value = ShapeValue;
  ShapeDomain(const CheckedModel& model, DiagnosticEngine& diag) : model_(model), diag_(diag) {}

  Value error() { return {}; }
  bool failed(const Value& v) { return v.kind == ShapeValue::Error; }
  Value number(double v, Span span);
  Value leaf(const Leaf& leaf, Span span);
  Value unary(const Value& a, Span span);
  Value binary(BinaryOp op, const Value& a, const Value& b, Span span);
  Value builtin(Builtin id, std::vector<Value>& args, const BuiltinConsts& c, Span span,
                const std::vector<Span>& arg_spans);
  Value index(const Value& base, const std::vector<IndexItem>& items, Span span);
  /// What a value is, for an editor's hover: "[4, 20]", "label[10]", "loss".
  std::string describe(const Value& v) const;

  /// Records every value computed from now on as a node of `out`, in the
  /// order computed (null: stop recording).
  void record_into(ResolvedExpr* out) { sink_ = out; }

private:
  // The shape rules; the public operations above add the recording.
  Value leaf_shape(const Leaf& leaf);
  Value unary_shape(const Value& a, Span span);
  Value binary_shape(BinaryOp op, const Value& a, const Value& b, Span span);
  Value builtin_shape(Builtin id, std::vector<Value>& args, const BuiltinConsts& c, Span span,
                      const std::vector<Span>& arg_spans);
  Value index_shape(const Value& base, const std::vector<IndexItem>& items, Span span);
  /// Appends `node` (its value kind, shape and flags taken from `v`) unless
  /// nothing is being recorded or `v` is an error; returns `v` naming it.
  Value record(Value v, ResolvedNode node);

  Value tensor(Shape s, bool per_obs = false) {
    return {ShapeValue::Tensor, std::move(s), per_obs, 0, {}};
  }
  Value fail(Span span, std::string message, std::string hint = {});
  Value from(const ShapeResult& r, Span span, bool per_obs);
  bool expect_tensor(const Value& v, Span span, std::string_view what);
  Value loss(Builtin id, std::vector<Value>& args, Span span, const std::vector<Span>& arg_spans);

  const CheckedModel& model_;
  DiagnosticEngine& diag_;
  ResolvedExpr* sink_ = nullptr;
};

} // namespace plastic::dsl
