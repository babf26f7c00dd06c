// Resolved expressions as IR (see expr_to_ir.h).
#include "compiler/irgen/expr_to_ir.h"

#include "dsl/shape.h"

#include <fmt/format.h>

namespace plastic::irgen {

namespace {

ir::Shape to_ir(const dsl::Shape& s) {
  return ir::Shape(s.begin(), s.end());
}

dsl::Shape from_ir(const ir::Shape& s) {
  return dsl::Shape(s.begin(), s.end());
}

dsl::Shape expect_shape(const dsl::ShapeResult& r) {
  if (auto* e = std::get_if<dsl::ShapeError>(&r))
    throw plastic::InternalError("a checked model failed a shape rule while lowering: " +
                                 e->message);
  return std::get<dsl::Shape>(r);
}

// Letters for einsum specs: batch axes first, then the operands' own axes.
std::string letters(size_t from, size_t count) {
  static const std::string alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  if (from + count > alphabet.size())
    throw plastic::InternalError("tensor rank too large for an einsum spec");
  return alphabet.substr(from, count);
}

const ir::Node* broadcast_batch(const ir::Node* x, const dsl::Shape& batch, size_t own_axes) {
  dsl::Shape target = batch;
  const ir::Shape& s = x->shape();
  target.insert(target.end(), s.end() - static_cast<ptrdiff_t>(own_axes), s.end());
  if (from_ir(s) == target) return x;
  return ir::broadcast_to(x, to_ir(target));
}

} // namespace

std::vector<int64_t> all_axes(const ir::Node* x) {
  std::vector<int64_t> axes(x->shape().size());
  for (size_t i = 0; i < axes.size(); ++i)
    axes[i] = static_cast<int64_t>(i);
  return axes;
}

const ir::Node* language_matmul(const ir::Node* a, const ir::Node* b) {
  dsl::Shape as = from_ir(a->shape()), bs = from_ir(b->shape());
  dsl::Shape out = expect_shape(dsl::matmul_shape(as, bs));
  if (as.size() == 1 && bs.size() == 1) return ir::contract("i,i->", {a, b});
  if (as.size() == 1) { // [n] @ [..., n, p]
    size_t batch = bs.size() - 2;
    std::string B = letters(0, batch);
    return ir::contract(fmt::format("y,{}yz->{}z", B, B), {a, b});
  }
  size_t batch = out.size() - (bs.size() < as.size() ? 1 : 2);
  dsl::Shape batch_shape(out.begin(), out.begin() + static_cast<ptrdiff_t>(batch));
  std::string B = letters(0, batch);
  if (bs.size() < as.size()) { // batched matvec
    const ir::Node* A = broadcast_batch(a, batch_shape, 2);
    const ir::Node* X = broadcast_batch(b, batch_shape, 1);
    return ir::contract(fmt::format("{}xy,{}y->{}x", B, B, B), {A, X});
  }
  const ir::Node* A = broadcast_batch(a, batch_shape, 2);
  const ir::Node* X = broadcast_batch(b, batch_shape, 2);
  return ir::contract(fmt::format("{}xy,{}yz->{}xz", B, B, B), {A, X});
}

const ir::Node* language_outer(const ir::Node* a, const ir::Node* b) {
  dsl::Shape out = expect_shape(dsl::outer_shape(from_ir(a->shape()), from_ir(b->shape())));
  dsl::Shape batch(out.begin(), out.end() - 2);
  std::string B = letters(0, batch.size());
  return ir::contract(fmt::format("{}x,{}y->{}xy", B, B, B),
                      {broadcast_batch(a, batch, 1), broadcast_batch(b, batch, 1)});
}

const ir::Node* language_einsum(const std::string& spec,
                                const std::vector<const ir::Node*>& operands) {
  std::vector<dsl::Shape> shapes;
  shapes.reserve(operands.size());
  for (const ir::Node* x : operands)
    shapes.push_back(from_ir(x->shape()));
  expect_shape(dsl::einsum_shape(spec, shapes));
  if (spec.find("...") == std::string::npos) return ir::contract(spec, operands);
  // Replace `...` by explicit upper-case letters after broadcasting the
  // ellipsis parts of all operands to one shape.
  auto arrow = spec.find("->");
  std::vector<std::string> inputs;
  std::string lhs = spec.substr(0, arrow);
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  dsl::Shape ellipsis;
  std::vector<size_t> extra(operands.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    size_t dots = inputs[i].find("...");
    if (dots == std::string::npos) continue;
    extra[i] = shapes[i].size() - (inputs[i].size() - 3);
    dsl::Shape mine(shapes[i].begin() + dots, shapes[i].begin() + dots + extra[i]);
    ellipsis = expect_shape(dsl::broadcast_shapes(ellipsis, mine));
  }
  std::string E = letters(26, ellipsis.size()); // upper case: never clashes with the user's labels
  std::vector<const ir::Node*> ops = operands;
  std::string new_spec;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string labels = inputs[i];
    size_t dots = labels.find("...");
    if (dots != std::string::npos) {
      dsl::Shape target(shapes[i].begin(), shapes[i].begin() + dots);
      target.insert(target.end(), ellipsis.begin(), ellipsis.end());
      target.insert(target.end(), shapes[i].begin() + dots + extra[i], shapes[i].end());
      if (target != shapes[i]) {
        // Align the operand's ellipsis part on the right, then broadcast.
        dsl::Shape aligned(shapes[i].begin(), shapes[i].begin() + dots);
        aligned.insert(aligned.end(), ellipsis.size() - extra[i], 1);
        aligned.insert(aligned.end(), shapes[i].begin() + dots, shapes[i].end());
        ops[i] = ir::broadcast_to(ir::reshape(ops[i], to_ir(aligned)), to_ir(target));
      }
      labels.replace(dots, 3, E);
    }
    new_spec += (i ? "," : "") + labels;
  }
  std::string rhs = spec.substr(arrow + 2);
  if (size_t dots = rhs.find("..."); dots != std::string::npos) rhs.replace(dots, 3, E);
  return ir::contract(new_spec + "->" + rhs, ops);
}

ExprToIr::Value ExprToIr::build(const dsl::ResolvedExpr& e) {
  PLASTIC_CHECK(!e.empty(), "a resolved expression has no value");
  std::vector<Value> values;
  values.reserve(e.nodes.size());
  std::vector<Value> args;
  // Nodes carry the model-file line they come from (the C++ backend quotes
  // it). The inside of a prelude layer or fn takes the line of the model
  // node read before it: the call's own line, as a rule.
  ir::SourceLoc at_line = ctx_.current_location();
  for (const dsl::ResolvedNode& n : e.nodes) {
    args.clear();
    for (int a : n.args) {
      PLASTIC_CHECK(a >= 0 && static_cast<size_t>(a) < values.size(),
                    "resolved node uses a later node {}", a);
      args.push_back(values[static_cast<size_t>(a)]);
    }
    if (n.span.valid() && n.span.file->name() != "<prelude>") {
      const dsl::SourceFile::LineCol lc = n.span.file->line_col(n.span.begin);
      at_line =
          ctx_.location(n.span.file->name(), static_cast<int>(lc.line), static_cast<int>(lc.col));
    }
    ir::LocationScope stamp(ctx_, at_line);
    Value v = node(n, args);
    // Labels are read one-hot and losses are scalars; every tensor has the
    // shape the checker proved.
    if (n.value == dsl::ValueKind::Tensor)
      PLASTIC_CHECK(from_ir(v->shape()) == n.shape,
                    "the IR of a node has shape {}, the checker proved {}",
                    dsl::format_shape(from_ir(v->shape())), dsl::format_shape(n.shape));
    values.push_back(v);
  }
  return values.at(static_cast<size_t>(e.root));
}

ExprToIr::Value ExprToIr::node(const dsl::ResolvedNode& n, std::vector<Value>& args) {
  switch (n.kind) {
  case dsl::ResolvedKind::Number:
    return ctx_.constant(n.number);
  case dsl::ResolvedKind::Leaf:
    return leaves_(n.leaf);
  case dsl::ResolvedKind::Unary:
    switch (n.unary_op) {
    case dsl::UnaryOp::Neg:
      return ir::neg(args.at(0));
    }
    break;
  case dsl::ResolvedKind::Binary:
    return binary(n.binary_op, args.at(0), args.at(1));
  case dsl::ResolvedKind::Builtin:
    return builtin(n.builtin, args, n.consts);
  case dsl::ResolvedKind::Index:
    return index(args.at(0), n.items);
  }
  throw plastic::InternalError("unhandled resolved node kind");
}

ExprToIr::Value ExprToIr::binary(dsl::BinaryOp op, Value a, Value b) {
  using dsl::BinaryOp;
  using ir::Broadcasting;
  switch (op) {
  case BinaryOp::MatMul:
    return language_matmul(a, b);
  case BinaryOp::Pow:
    if (!b->is_splat()) throw plastic::InternalError("the exponent of '^' is not a constant");
    return ir::powc(a, b->attrs().reals[0]);
  case BinaryOp::Add:
    return ir::add(a, b, Broadcasting::Numpy);
  case BinaryOp::Sub:
    return ir::sub(a, b, Broadcasting::Numpy);
  case BinaryOp::Mul:
    return ir::mul(a, b, Broadcasting::Numpy);
  case BinaryOp::Div:
    return ir::div(a, b, Broadcasting::Numpy);
  }
  throw plastic::InternalError(fmt::format("no lowering for operator '{}'", dsl::to_string(op)));
}

ExprToIr::Value ExprToIr::loss(dsl::Builtin id, Value prediction, Value target, double pos_weight) {
  switch (id) {
  case dsl::Builtin::CrossEntropy:
    // Labels arrive one-hot: logsumexp(z) - <z, onehot>, stable for any logits.
    return ir::sub(ir::logsumexp(prediction, 0), ir::dot(prediction, target));
  case dsl::Builtin::BceWithLogits: {
    // softplus(x) - x*y, averaged over the elements (PyTorch's mean reduction).
    const ir::Node* terms = ir::sub(ir::softplus(prediction), ir::mul(prediction, target));
    // With pos_weight p, PyTorch's p*y*softplus(-x) + (1-y)*softplus(x): the
    // same plus (p-1)*y*softplus(-x), since softplus(-x) = softplus(x) - x.
    if (pos_weight != 1)
      terms = ir::add(
          terms, ir::scale(ir::mul(ir::softplus(ir::neg(prediction)), target), pos_weight - 1));
    return terms->shape().empty() ? terms : ir::mean(terms, all_axes(terms));
  }
  case dsl::Builtin::Mse: {
    const ir::Node* sq = ir::square(ir::sub(prediction, target));
    return sq->shape().empty() ? sq : ir::mean(sq, all_axes(sq));
  }
  default:
    break;
  }
  throw plastic::InternalError("not a loss builtin");
}

ExprToIr::Value ExprToIr::builtin(dsl::Builtin id, std::vector<Value>& args,
                                  const dsl::BuiltinConsts& c) {
  using dsl::Builtin;
  Value x = args.empty() ? nullptr : args[0];
  auto axis = [&](std::optional<int64_t> a) {
    int64_t rank = static_cast<int64_t>(x->shape().size());
    int64_t v = a.value_or(-1);
    return v < 0 ? v + rank : v;
  };
  switch (id) {
  case Builtin::Tanh:
    return ir::tanh(x);
  case Builtin::Sigmoid:
    return ir::sigmoid(x);
  case Builtin::Relu:
    return ir::relu(x);
  case Builtin::Elu:
    return ir::elu(x);
  case Builtin::Softplus:
    return ir::softplus(x);
  case Builtin::Exp:
    return ir::exp(x);
  case Builtin::Log:
    return ir::log(x);
  case Builtin::Sqrt:
    return ir::sqrt(x);
  case Builtin::Abs:
    return ir::abs(x);
  case Builtin::Square:
    return ir::square(x);
  case Builtin::Softmax:
    return ir::softmax(x, axis(c.axis));
  case Builtin::LogSumExp:
    return ir::logsumexp(x, axis(c.axis));
  case Builtin::LayerNorm:
    return ir::layernorm(x, axis(-1), c.eps);
  case Builtin::Outer:
    return language_outer(x, args[1]);
  case Builtin::Transpose: {
    std::vector<int64_t> perm(x->shape().size());
    for (size_t i = 0; i < perm.size(); ++i)
      perm[i] = static_cast<int64_t>(i);
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return ir::transpose(x, perm);
  }
  case Builtin::Sum:
  case Builtin::Mean:
  case Builtin::Max: {
    std::vector<int64_t> axes = c.axis ? std::vector<int64_t>{axis(c.axis)} : all_axes(x);
    if (axes.empty()) return x;
    if (id == Builtin::Sum) return ir::reduce_sum(x, axes);
    if (id == Builtin::Mean) return ir::mean(x, axes);
    return ir::reduce_max(x, axes);
  }
  case Builtin::Reshape:
    return ir::reshape(x, ir::Shape(c.shape.begin(), c.shape.end()));
  case Builtin::Concat:
    return ir::concat(args, axis(c.axis));
  case Builtin::Einsum:
    return language_einsum(c.spec, args);
  case Builtin::Minimum:
    return ir::min(x, args[1], ir::Broadcasting::Numpy);
  case Builtin::Maximum:
    return ir::max(x, args[1], ir::Broadcasting::Numpy);
  case Builtin::CrossEntropy:
  case Builtin::BceWithLogits:
  case Builtin::Mse:
    return loss(id, x, args[1], c.pos_weight);
  }
  throw plastic::InternalError("unhandled builtin in lowering");
}

ExprToIr::Value ExprToIr::index(Value base, const std::vector<dsl::IndexItem>& items) {
  const ir::Shape& s = base->shape();
  size_t explicit_items = 0;
  for (const auto& it : items)
    explicit_items += it.kind != dsl::IndexItem::Ellipsis;
  std::vector<int64_t> starts(s.size(), 0);
  ir::Shape sizes = s, out;
  size_t axis = 0;
  for (const auto& it : items) {
    if (it.kind == dsl::IndexItem::Ellipsis) {
      for (size_t k = 0; k < s.size() - explicit_items; ++k)
        out.push_back(s[axis++]);
      continue;
    }
    int64_t n = s[axis];
    if (it.kind == dsl::IndexItem::Index) {
      starts[axis] = it.index < 0 ? it.index + n : it.index;
      sizes[axis] = 1;
    } else {
      int64_t lo = it.lo.value_or(0), hi = it.hi.value_or(n);
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      starts[axis] = lo;
      sizes[axis] = hi - lo;
      out.push_back(hi - lo);
    }
    ++axis;
  }
  for (; axis < s.size(); ++axis)
    out.push_back(s[axis]);
  const ir::Node* r = ir::slice(base, starts, sizes);
  return r->shape() == out ? r : ir::reshape(r, out);
}

} // namespace plastic::irgen
