// Factories of elementwise ops: unary, binary, comparisons, select.
//
// Folding computes in the node's own precision (f32 nodes fold in float) via
// the shared scalar semantics of scalar_math.h, so folded and interpreted
// values agree exactly.
#include <fmt/format.h>

#include "compiler/ir/ops_internal.h"
#include "compiler/ir/scalar_math.h"

namespace plastic::ir {
using detail::constant_at;

namespace {

bool foldable(std::initializer_list<const Node*> xs) {
  for (const Node* x : xs)
    if (!x->is_constant() || (!x->is_splat() && x->numel() > detail::kFoldLimit)) return false;
  return true;
}

bool all_splat(std::initializer_list<const Node*> xs) {
  for (const Node* x : xs)
    if (!x->is_splat()) return false;
  return true;
}

// Builds the constant of `shape`/`dtype` whose element i is f(i), as a splat
// when every operand is one.
template <typename F>
const Node* fold(Context& ctx, const Shape& shape, DType dtype, bool splat, F f) {
  if (splat) return ctx.constant(f(0), shape, dtype);
  std::vector<double> v(static_cast<size_t>(numel(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = f(static_cast<int64_t>(i));
  return ctx.constant(std::move(v), shape, dtype);
}

template <typename T> double unary_value(Op op, double x, double p) {
  return static_cast<double>(apply_unary<T>(op, static_cast<T>(x), p));
}
template <typename T> double binary_value(Op op, double a, double b) {
  return static_cast<double>(apply_binary<T>(op, static_cast<T>(a), static_cast<T>(b)));
}

std::pair<const Node*, const Node*> numpy_pair(const Node* a, const Node* b, Broadcasting mode) {
  if (mode == Broadcasting::Numpy && a->shape() != b->shape()) {
    Context& ctx = a->context();
    Shape s;
    try {
      s = broadcast_shape(a->shape(), b->shape());
    } catch (const IRError& e) {
      throw IRError(e.what(), ctx.current_location());
    }
    return {broadcast_to(a, s), broadcast_to(b, s)};
  }
  return {a, b};
}

} // namespace

const Node* splat_like(const Node* x, double value) {
  return x->context().constant(value, x->shape(), x->dtype());
}

const Node* unary(Op op, const Node* x, double p) {
  if (op_category(op) != OpCategory::Unary)
    throw IRError(fmt::format("{} is not an elementwise unary op", op_name(op)),
                  x->context().current_location());
  Attrs attrs;
  if (op == Op::PowC) attrs.reals = {p};
  TypeResult t = detail::check(op, {x}, attrs);
  if (foldable({x})) {
    bool f32 = x->dtype() == DType::F32;
    return fold(x->context(), x->shape(), x->dtype(), x->is_splat(), [&](int64_t i) {
      double v = constant_at(x, i);
      return f32 ? unary_value<float>(op, v, p) : unary_value<double>(op, v, p);
    });
  }
  switch (op) {
  case Op::Neg:
    if (x->op() == Op::Neg) return x->operand(0);
    break;
  case Op::PowC:
    if (p == 1) return x;
    if (p == 2) return square(x);
    if (p == -1) return reciprocal(x);
    if (p == 0.5) return sqrt(x);
    break;
  case Op::Abs:
    if (x->op() == Op::Abs || x->op() == Op::Square || x->op() == Op::Exp) return x;
    if (x->op() == Op::Neg) return abs(x->operand(0));
    break;
  case Op::Square:
    if (x->op() == Op::Neg || x->op() == Op::Abs) return square(x->operand(0));
    break;
  default:
    break;
  }
  return detail::make(op, std::move(t), {x}, std::move(attrs));
}

const Node* neg(const Node* x) {
  return unary(Op::Neg, x);
}
const Node* exp(const Node* x) {
  return unary(Op::Exp, x);
}
const Node* log(const Node* x) {
  return unary(Op::Log, x);
}
const Node* tanh(const Node* x) {
  return unary(Op::Tanh, x);
}
const Node* sigmoid(const Node* x) {
  return unary(Op::Sigmoid, x);
}
const Node* relu(const Node* x) {
  return unary(Op::Relu, x);
}
const Node* elu(const Node* x) {
  return unary(Op::Elu, x);
}
const Node* softplus(const Node* x) {
  return unary(Op::Softplus, x);
}
const Node* sqrt(const Node* x) {
  return unary(Op::Sqrt, x);
}
const Node* abs(const Node* x) {
  return unary(Op::Abs, x);
}
const Node* square(const Node* x) {
  return unary(Op::Square, x);
}
const Node* reciprocal(const Node* x) {
  return unary(Op::Reciprocal, x);
}
const Node* sin(const Node* x) {
  return unary(Op::Sin, x);
}
const Node* cos(const Node* x) {
  return unary(Op::Cos, x);
}
const Node* step(const Node* x) {
  return unary(Op::Step, x);
}
const Node* sign(const Node* x) {
  return unary(Op::Sign, x);
}
const Node* powc(const Node* x, double p) {
  return unary(Op::PowC, x, p);
}

bool canonical_before(const Node* a, const Node* b) {
  if (a->is_constant() != b->is_constant()) return !a->is_constant();
  if (a->hash() != b->hash()) return a->hash() < b->hash();
  return a->id() < b->id();
}

const Node* binary(Op op, const Node* a, const Node* b, Broadcasting mode) {
  if (op_category(op) != OpCategory::Binary)
    throw IRError(fmt::format("{} is not an elementwise binary op", op_name(op)),
                  a->context().current_location());
  std::tie(a, b) = numpy_pair(a, b, mode);
  if (op_is_commutative(op) && canonical_before(b, a)) std::swap(a, b);
  TypeResult t = detail::check(op, {a, b}, {});
  if (foldable({a, b})) {
    bool f32 = a->dtype() == DType::F32;
    return fold(a->context(), a->shape(), a->dtype(), all_splat({a, b}), [&](int64_t i) {
      double x = constant_at(a, i), y = constant_at(b, i);
      return f32 ? binary_value<float>(op, x, y) : binary_value<double>(op, x, y);
    });
  }
  // Exact identities only; constants are on the right after canonicalisation.
  switch (op) {
  case Op::Add:
    if (b->is_splat_of(0.0)) return a;
    if (b->op() == Op::Neg) return sub(a, b->operand(0));
    if (a->op() == Op::Neg) return sub(b, a->operand(0));
    break;
  case Op::Sub:
    if (b->is_splat_of(0.0)) return a;
    if (a->is_splat_of(0.0)) return neg(b);
    if (b->op() == Op::Neg) return add(a, b->operand(0));
    break;
  case Op::Mul:
    if (b->is_splat_of(1.0)) return a;
    if (b->is_splat_of(-1.0)) return neg(a);
    if (a->op() == Op::Neg && b->op() == Op::Neg) return mul(a->operand(0), b->operand(0));
    if (a->op() == Op::Neg) return neg(mul(a->operand(0), b));
    if (b->op() == Op::Neg) return neg(mul(a, b->operand(0)));
    if (a == b) return square(a);
    break;
  case Op::Div:
    if (b->is_splat_of(1.0)) return a;
    if (a->is_splat_of(1.0)) return reciprocal(b);
    break;
  case Op::Max:
  case Op::Min:
    if (a == b) return a;
    break;
  default:
    break;
  }
  return detail::make(op, std::move(t), {a, b}, {});
}

const Node* add(const Node* a, const Node* b, Broadcasting m) {
  return binary(Op::Add, a, b, m);
}
const Node* sub(const Node* a, const Node* b, Broadcasting m) {
  return binary(Op::Sub, a, b, m);
}
const Node* mul(const Node* a, const Node* b, Broadcasting m) {
  return binary(Op::Mul, a, b, m);
}
const Node* div(const Node* a, const Node* b, Broadcasting m) {
  return binary(Op::Div, a, b, m);
}
const Node* max(const Node* a, const Node* b, Broadcasting m) {
  return binary(Op::Max, a, b, m);
}
const Node* min(const Node* a, const Node* b, Broadcasting m) {
  return binary(Op::Min, a, b, m);
}
const Node* scale(const Node* x, double c) {
  return mul(x, splat_like(x, c));
}
const Node* shift(const Node* x, double c) {
  return add(x, splat_like(x, c));
}

const Node* compare(Op op, const Node* a, const Node* b, Broadcasting mode) {
  if (op_category(op) != OpCategory::Compare)
    throw IRError(fmt::format("{} is not a comparison", op_name(op)),
                  a->context().current_location());
  std::tie(a, b) = numpy_pair(a, b, mode);
  if (op_is_commutative(op) && canonical_before(b, a)) std::swap(a, b);
  TypeResult t = detail::check(op, {a, b}, {});
  if (foldable({a, b})) {
    bool f32 = a->dtype() == DType::F32;
    return fold(a->context(), a->shape(), DType::I1, all_splat({a, b}), [&](int64_t i) {
      double x = constant_at(a, i), y = constant_at(b, i);
      return (f32 ? apply_compare<float>(op, static_cast<float>(x), static_cast<float>(y))
                  : apply_compare<double>(op, x, y))
                 ? 1.0
                 : 0.0;
    });
  }
  return detail::make(op, std::move(t), {a, b}, {});
}

const Node* lt(const Node* a, const Node* b) {
  return compare(Op::Lt, a, b);
}
const Node* le(const Node* a, const Node* b) {
  return compare(Op::Le, a, b);
}
const Node* gt(const Node* a, const Node* b) {
  return compare(Op::Gt, a, b);
}
const Node* ge(const Node* a, const Node* b) {
  return compare(Op::Ge, a, b);
}
const Node* eq(const Node* a, const Node* b) {
  return compare(Op::Eq, a, b);
}
const Node* ne(const Node* a, const Node* b) {
  return compare(Op::Ne, a, b);
}

const Node* select(const Node* cond, const Node* a, const Node* b) {
  TypeResult t = detail::check(Op::Select, {cond, a, b}, {});
  if (cond->is_splat()) return cond->attrs().reals[0] != 0 ? a : b;
  if (a == b) return a;
  return detail::make(Op::Select, std::move(t), {cond, a, b}, {});
}

} // namespace plastic::ir
