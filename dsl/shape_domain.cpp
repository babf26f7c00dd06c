// Shape checking of expressions (see shape_domain.h).
#include "dsl/shape_domain.h"

namespace plastic::dsl {

ShapeValue ShapeDomain::fail(Span span, std::string message, std::string hint) {
  diag_.error(span, std::move(message), std::move(hint));
  return error();
}

ShapeValue ShapeDomain::from(const ShapeResult& r, Span span, bool per_obs) {
  if (auto* e = std::get_if<ShapeError>(&r)) return fail(span, e->message, e->hint);
  return tensor(std::get<Shape>(r), per_obs);
}

bool ShapeDomain::expect_tensor(const Value& v, Span span, std::string_view what) {
  if (v.kind == ShapeValue::Tensor) return true;
  if (v.kind == ShapeValue::Label)
    diag_.error(span, fmt::format("a label cannot be used in {}", what),
                "labels are class indices; use them only as the target of cross_entropy");
  else if (v.kind == ShapeValue::Loss)
    diag_.error(span, fmt::format("a loss cannot be used in {}", what),
                "losses can only be added and scaled");
  return false;
}

ShapeValue ShapeDomain::record(Value v, ResolvedNode node) {
  if (!sink_ || failed(v)) return v;
  for (int a : node.args)
    PLASTIC_CHECK(a >= 0 && a < static_cast<int>(sink_->nodes.size()),
                  "an operand of a resolved node was not recorded");
  node.value = v.kind == ShapeValue::Label  ? ValueKind::Label
               : v.kind == ShapeValue::Loss ? ValueKind::Loss
                                            : ValueKind::Tensor;
  node.shape = v.shape;
  node.per_observation = v.per_observation;
  v.node = static_cast<int>(sink_->nodes.size());
  sink_->nodes.push_back(std::move(node));
  return v;
}

ShapeValue ShapeDomain::number(double v, Span span) {
  ResolvedNode n;
  n.span = span;
  n.kind = ResolvedKind::Number;
  n.number = v;
  return record({ShapeValue::Tensor, {}, false, 0, v}, std::move(n));
}

ShapeValue ShapeDomain::leaf(const Leaf& leaf, Span span) {
  ResolvedNode n;
  n.span = span;
  n.kind = ResolvedKind::Leaf;
  n.leaf = leaf;
  return record(leaf_shape(leaf), std::move(n));
}

ShapeValue ShapeDomain::unary(const Value& a, Span span) {
  ResolvedNode n;
  n.span = span;
  n.kind = ResolvedKind::Unary;
  n.unary_op = UnaryOp::Neg;
  n.args = {a.node};
  return record(unary_shape(a, span), std::move(n));
}

ShapeValue ShapeDomain::binary(BinaryOp op, const Value& a, const Value& b, Span span) {
  ResolvedNode n;
  n.span = span;
  n.kind = ResolvedKind::Binary;
  n.binary_op = op;
  n.args = {a.node, b.node};
  return record(binary_shape(op, a, b, span), std::move(n));
}

ShapeValue ShapeDomain::builtin(Builtin id, std::vector<Value>& args, const BuiltinConsts& c,
                                Span span, const std::vector<Span>& arg_spans) {
  ResolvedNode n;
  n.span = span;
  n.kind = ResolvedKind::Builtin;
  n.builtin = id;
  n.consts = c;
  for (const Value& a : args)
    n.args.push_back(a.node);
  return record(builtin_shape(id, args, c, span, arg_spans), std::move(n));
}

ShapeValue ShapeDomain::index(const Value& base, const std::vector<IndexItem>& items, Span span) {
  ResolvedNode n;
  n.span = span;
  n.kind = ResolvedKind::Index;
  n.items = items;
  n.args = {base.node};
  return record(index_shape(base, items, span), std::move(n));
}

ShapeValue ShapeDomain::leaf_shape(const Leaf& leaf) {
  switch (leaf.kind) {
  case Leaf::Param:
    return tensor(model_.params[leaf.index].shape);
  case Leaf::State:
    return tensor(model_.states[leaf.index].shape);
  case Leaf::PathValue:
    return tensor(model_.inputs[leaf.index].shape);
  case Leaf::PathDerivative:
    return tensor({model_.inputs[leaf.index].drive_size});
  case Leaf::Static:
    return tensor(model_.inputs[leaf.index].shape);
  case Leaf::Label: {
    ShapeValue v{ShapeValue::Label, {}, false, model_.inputs[leaf.index].classes, {}};
    return v;
  }
  case Leaf::Target:
    return tensor(model_.inputs[leaf.index].shape, model_.inputs[leaf.index].per_observation);
  case Leaf::Output:
    return tensor(model_.outputs[leaf.index].shape, model_.outputs[leaf.index].per_observation);
  case Leaf::Time:
    return tensor({});
  }
  throw InternalError("unhandled leaf kind");
}

ShapeValue ShapeDomain::unary_shape(const Value& a, Span span) {
  if (a.kind == ShapeValue::Loss) return a;
  if (!expect_tensor(a, span, "an arithmetic expression")) return error();
  Value r = a;
  if (r.constant) r.constant = -*r.constant;
  return r;
}

ShapeValue ShapeDomain::binary_shape(BinaryOp op, const Value& a, const Value& b, Span span) {
  // Losses form weighted sums: loss + loss, number * loss, loss / number.
  if (a.kind == ShapeValue::Loss || b.kind == ShapeValue::Loss) {
    bool both = a.kind == ShapeValue::Loss && b.kind == ShapeValue::Loss;
    bool scaled_a = a.kind == ShapeValue::Tensor && a.shape.empty();
    bool scaled_b = b.kind == ShapeValue::Tensor && b.shape.empty();
    if (((op == BinaryOp::Add || op == BinaryOp::Sub) && both) ||
        (op == BinaryOp::Mul && (scaled_a || scaled_b)) || (op == BinaryOp::Div && scaled_b))
      return {ShapeValue::Loss, {}, false, 0, {}};
    return fail(span, fmt::format("a loss cannot be combined with '{}' like this", to_string(op)),
                "a loss is a weighted sum of cross_entropy, bce_with_logits and mse terms");
  }
  if (!expect_tensor(a, span, "an arithmetic expression") ||
      !expect_tensor(b, span, "an arithmetic expression"))
    return error();
  bool per_obs = a.per_observation || b.per_observation;
  if (op == BinaryOp::MatMul) return from(matmul_shape(a.shape, b.shape), span, per_obs);
  if (op == BinaryOp::Pow) {
    if (!b.shape.empty()) return fail(span, "the exponent of '^' must be a scalar constant");
    return tensor(a.shape, per_obs);
  }
  Value r = from(broadcast_shapes(a.shape, b.shape), span, per_obs);
  if (a.constant && b.constant && !failed(r)) {
    switch (op) {
    case BinaryOp::Add:
      r.constant = *a.constant + *b.constant;
      break;
    case BinaryOp::Sub:
      r.constant = *a.constant - *b.constant;
      break;
    case BinaryOp::Mul:
      r.constant = *a.constant * *b.constant;
      break;
    case BinaryOp::Div:
      r.constant = *a.constant / *b.constant;
      break;
    case BinaryOp::Pow:
    case BinaryOp::MatMul:
      break; // handled above
    }
  }
  return r;
}

ShapeValue ShapeDomain::builtin_shape(Builtin id, std::vector<Value>& args, const BuiltinConsts& c,
                                      Span span, const std::vector<Span>& arg_spans) {
  if (is_loss_builtin(id)) return loss(id, args, span, arg_spans);
  const BuiltinSpec& spec = builtin_spec(id);
  bool per_obs = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!expect_tensor(args[i], arg_spans[i], fmt::format("{}", spec.name))) return error();
    per_obs = per_obs || args[i].per_observation;
  }
  const Shape& x = args[0].shape;
  if (is_elementwise_unary(id)) return tensor(x, per_obs);
  switch (id) {
  case Builtin::Softmax:
  case Builtin::LogSumExp: {
    auto axis = normalize_axis(*c.axis, x.size());
    if (!axis)
      return fail(span,
                  fmt::format("axis {} is out of range for shape {}", *c.axis, format_shape(x)),
                  x.empty() ? fmt::format("{} of a scalar is meaningless", spec.name) : "");
    if (id == Builtin::Softmax) return tensor(x, per_obs);
    return from(reduce_shape(x, c.axis), span, per_obs);
  }
  case Builtin::LayerNorm:
    if (x.empty()) return fail(span, "layernorm needs at least one axis; got a scalar");
    return tensor(x, per_obs);
  case Builtin::Outer:
    return from(outer_shape(x, args[1].shape), span, per_obs);
  case Builtin::Transpose:
    return from(transpose_shape(x), span, per_obs);
  case Builtin::Sum:
  case Builtin::Mean:
  case Builtin::Max:
    return from(reduce_shape(x, c.axis), span, per_obs);
  case Builtin::Reshape:
    return from(reshape_shape(x, c.shape), span, per_obs);
  case Builtin::Concat: {
    std::vector<Shape> parts;
    parts.reserve(args.size());
    for (const Value& v : args)
      parts.push_back(v.shape);
    return from(concat_shape(parts, *c.axis), span, per_obs);
  }
  case Builtin::Einsum: {
    std::vector<Shape> parts;
    parts.reserve(args.size());
    for (const Value& v : args)
      parts.push_back(v.shape);
    return from(einsum_shape(c.spec, parts), span, per_obs);
  }
  case Builtin::Minimum:
  case Builtin::Maximum:
    return from(broadcast_shapes(x, args[1].shape), span, per_obs);
  default:
    break;
  }
  throw InternalError(fmt::format("no shape rule for builtin {}", spec.name));
}

ShapeValue ShapeDomain::loss(Builtin id, std::vector<Value>& args, Span span,
                             const std::vector<Span>& arg_spans) {
  const Value& prediction = args[0];
  const Value& target = args[1];
  std::string_view name = builtin_spec(id).name;
  if (!expect_tensor(prediction, arg_spans[0], fmt::format("the prediction of {}", name)))
    return error();
  if (id == Builtin::CrossEntropy) {
    if (target.kind != ShapeValue::Label)
      return fail(arg_spans[1], "cross_entropy expects a label as its second argument",
                  "declare the target as `input y : label[classes]`");
    if (prediction.shape != Shape{target.classes})
      return fail(arg_spans[0],
                  fmt::format("cross_entropy expects logits of shape [{}], got {}", target.classes,
                              format_shape(prediction.shape)),
                  "one logit per class");
    return {ShapeValue::Loss, {}, false, 0, {}};
  }
  if (target.kind != ShapeValue::Tensor)
    return fail(arg_spans[1], fmt::format("{} expects a tensor target", name),
                "declare it as `input r : target[...]`");
  if (prediction.shape != target.shape)
    return fail(span, fmt::format("{} compares shapes {} and {}, which differ", name,
                                  format_shape(prediction.shape), format_shape(target.shape)));
  if (prediction.per_observation != target.per_observation)
    return fail(span, fmt::format("{} mixes a per-observation and a final-time quantity", name),
                "declare both the output and the target `per observation`, or neither");
  return {ShapeValue::Loss, {}, false, 0, {}};
}

ShapeValue ShapeDomain::index_shape(const Value& base, const std::vector<IndexItem>& items,
                                    Span span) {
  if (!expect_tensor(base, span, "indexing")) return error();
  const Shape& x = base.shape;
  size_t explicit_items = 0, ellipses = 0;
  for (const IndexItem& it : items)
    (it.kind == IndexItem::Ellipsis ? ellipses : explicit_items)++;
  if (ellipses > 1) return fail(span, "at most one '...' per index");
  if (explicit_items > x.size())
    return fail(span, fmt::format("{} indices for shape {}", explicit_items, format_shape(x)),
                "too many indices");
  Shape out;
  size_t axis = 0;
  for (const IndexItem& it : items) {
    if (it.kind == IndexItem::Ellipsis) {
      size_t skip = x.size() - explicit_items;
      for (size_t k = 0; k < skip; ++k)
        out.push_back(x[axis++]);
      continue;
    }
    int64_t n = x[axis];
    if (it.kind == IndexItem::Index) {
      int64_t i = it.index < 0 ? it.index + n : it.index;
      if (i < 0 || i >= n)
        return fail(span, fmt::format("index {} is out of range for axis {} of size {}", it.index,
                                      axis, n));
    } else {
      int64_t lo = it.lo.value_or(0), hi = it.hi.value_or(n);
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      if (lo < 0 || hi > n || lo >= hi)
        return fail(
            span,
            fmt::format("slice {}:{} is out of range for axis {} of size {}", lo, hi, axis, n),
            "a slice a:b needs 0 <= a < b <= size");
      out.push_back(hi - lo);
    }
    ++axis;
  }
  for (; axis < x.size(); ++axis)
    out.push_back(x[axis]);
  return tensor(out, base.per_observation);
}

std::string ShapeDomain::describe(const Value& v) const {
  switch (v.kind) {
  case ShapeValue::Tensor:
    return format_shape(v.shape) + (v.per_observation ? " per observation" : "");
  case ShapeValue::Label:
    return fmt::format("label[{}]", v.classes);
  case ShapeValue::Loss:
    return "loss";
  case ShapeValue::Error:
    break;
  }
  return "";
}

} // namespace plastic::dsl
