// Constant folding (see constants.h).
#include "dsl/constants.h"

#include "runtime/support/witt.h"

#include <fmt/format.h>

#include <cmath>

namespace plastic::dsl {

int64_t logsig_dimension(int64_t d, int64_t depth) {
  if (d <= 0 || depth <= 0 || depth > 16) return 0;
  return support::logsig_dim(d, depth);
}

std::optional<double> ConstantEvaluator::dim(const std::string& name, const LayerInstance* layer) {
  if (layer) {
    auto it = layer->dims.find(name);
    if (it != layer->dims.end()) return it->second;
    return std::nullopt; // layers see only their own arguments
  }
  for (size_t i = 0; i < model_.dims.size(); ++i)
    if (model_.dims[i].name == name) {
      if (uses_) uses_->dims.insert(static_cast<int>(i));
      return model_.dims[i].value;
    }
  return std::nullopt;
}

void ConstantEvaluator::note_dim(const Expr& e, const LayerInstance* layer) {
  if (!uses_ || !uses_->index) return;
  if (!layer) {
    for (const DimValue& d : model_.dims)
      if (d.name == e.text) uses_->note(e.span, symbol_of(d));
    return;
  }
  for (const Ident& arg : layer->def->args)
    if (arg.name == e.text)
      uses_->note(e.span, {arg.name,
                           SymbolKind::Argument,
                           arg.span,
                           format_value(layer->dims.at(arg.name)),
                           {},
                           false});
}

void ConstantEvaluator::note_uses(const Expr& e) {
  if (e.kind == ExprKind::Name && dim(e.text, nullptr)) note_dim(e, nullptr);
  for (const ExprPtr& c : e.children)
    if (c) note_uses(*c);
  for (const Arg& a : e.args)
    if (a.value) note_uses(*a.value);
}

std::optional<double> ConstantEvaluator::eval(const Expr& e, const LayerInstance* layer) {
  switch (e.kind) {
  case ExprKind::Number:
    return e.number;
  case ExprKind::Name: {
    if (auto v = dim(e.text, layer)) {
      note_dim(e, layer);
      return v;
    }
    if (!layer && bindings_.broken.count(e.text)) return std::nullopt; // already reported
    diag_.error(e.span, fmt::format("'{}' is not a constant", e.text),
                layer ? "only the layer's arguments and numbers can be used here"
                      : "only dims, consts and numbers can be used here");
    return std::nullopt;
  }
  case ExprKind::Unary: {
    auto a = eval(e.child(0), layer);
    return a ? std::optional<double>(-*a) : std::nullopt;
  }
  case ExprKind::Binary: {
    auto a = eval(e.child(0), layer);
    auto b = eval(e.child(1), layer);
    if (!a || !b) return std::nullopt;
    switch (e.binary_op) {
    case BinaryOp::Add:
      return *a + *b;
    case BinaryOp::Sub:
      return *a - *b;
    case BinaryOp::Mul:
      return *a * *b;
    case BinaryOp::Pow:
      return std::pow(*a, *b);
    case BinaryOp::Div:
      if (*b == 0) {
        diag_.error(e.span, "division by zero in a constant expression");
        return std::nullopt;
      }
      return *a / *b;
    case BinaryOp::MatMul:
      break;
    }
    diag_.error(e.span, fmt::format("'{}' is not allowed in a constant expression",
                                    to_string(e.binary_op)));
    return std::nullopt;
  }
  case ExprKind::Call:
    if (e.child(0).kind == ExprKind::Name && e.child(0).text == "logsig_dim" &&
        e.args.size() == 2) {
      auto d = eval(*e.args[0].value, layer);
      auto n = eval(*e.args[1].value, layer);
      if (!d || !n) return std::nullopt;
      return static_cast<double>(
          logsig_dimension(static_cast<int64_t>(*d), static_cast<int64_t>(*n)));
    }
    [[fallthrough]];
  default:
    diag_.error(e.span, "expected a constant expression",
                "dims, consts, numbers, + - * / and logsig_dim(d, depth)");
    return std::nullopt;
  }
}

std::optional<int64_t> ConstantEvaluator::integer(const Expr& e, const LayerInstance* layer,
                                                  std::string_view what) {
  auto v = eval(e, layer);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v) || std::abs(*v) > 1e15) {
    diag_.error(e.span, fmt::format("{} must be an integer, got {}", what, *v));
    return std::nullopt;
  }
  return static_cast<int64_t>(*v);
}

} // namespace plastic::dsl
