// The checker's domain for the Evaluator: values are shapes.
//
// Evaluating an expression here computes its static shape and reports every
// shape error with the expression's span and a hint. Losses and labels are
// kinds of their own so `cross_entropy(logits, y)` can be checked, and a
// per-observation flag keeps final-time and per-observation quantities apart.
#pragma once

#include "dsl/evaluator.h"

namespace plastic::dsl {

struct ShapeValue {
  enum Kind { Error, Tensor, Label, Loss } kind = Error;
  Shape shape;
  bool per_observation = false;
  int64_t classes = 0;  ///< labels
  std::optional<double> constant;  ///< a literal number (for scalar folding of literals only)
};

class ShapeDomain {
public:
  using Value = ShapeValue;
  ShapeDomain(const CheckedModel& model, DiagnosticEngine& diag) : model_(model), diag_(diag) {}

  Value error() { return {}; }
  bool failed(const Value& v) { return v.kind == ShapeValue::Error; }
  Value number(double v, Span) { return {ShapeValue::Tensor, {}, false, 0, v}; }
  Value leaf(const Leaf& leaf, Span span);
  Value unary(const Value& a, Span span);
  Value binary(BinaryOp op, const Value& a, const Value& b, Span span);
  Value builtin(Builtin id, std::vector<Value>& args, const BuiltinConsts& c, Span span,
                const std::vector<Span>& arg_spans);
  Value index(const Value& base, const std::vector<IndexItem>& items, Span span);

private:
  Value tensor(Shape s, bool per_obs = false) { return {ShapeValue::Tensor, std::move(s), per_obs, 0, {}}; }
  Value fail(Span span, std::string message, std::string hint = {});
  Value from(const ShapeResult& r, Span span, bool per_obs);
  bool expect_tensor(const Value& v, Span span, std::string_view what);
  Value loss(Builtin id, std::vector<Value>& args, Span span, const std::vector<Span>& arg_spans);

  const CheckedModel& model_;
  DiagnosticEngine& diag_;
};

}  // namespace plastic::dsl
