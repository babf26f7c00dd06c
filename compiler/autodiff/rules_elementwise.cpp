// Derivative rules of elementwise ops.
//
// Unary ops are given CasADi-style by one partial derivative dy/dx written
// in terms of the operand x and the result y; the VJP multiplies the
// cotangent by it and the JVP the tangent, so both modes come from the same
// line. Binary ops give their two partials the same way where they are
// products; max/min and select route the (co)tangent with a mask.
#include "compiler/autodiff/rule_util.h"
#include "compiler/autodiff/rules.h"
#include "compiler/ir/ops.h"

namespace plastic::ad {
namespace {

using namespace ir;
using detail::add_or;
using detail::or_zeros;

using Partial = const Node* (*)(const Node* x, const Node* y);

// clang-format off
const Node* d_neg(const Node* x, const Node*) { return splat_like(x, -1.0); }
const Node* d_exp(const Node*, const Node* y) { return y; }
const Node* d_log(const Node* x, const Node*) { return reciprocal(x); }
const Node* d_tanh(const Node*, const Node* y) { return sub(splat_like(y, 1.0), square(y)); }
const Node* d_sigmoid(const Node*, const Node* y) { return mul(y, sub(splat_like(y, 1.0), y)); }
const Node* d_relu(const Node* x, const Node*) { return step(x); }
const Node* d_elu(const Node* x, const Node*) {
  return select(gt(x, zeros_like(x)), splat_like(x, 1.0), exp(x));
}
const Node* d_softplus(const Node* x, const Node*) { return sigmoid(x); }
const Node* d_sqrt(const Node*, const Node* y) { return scale(reciprocal(y), 0.5); }
const Node* d_abs(const Node* x, const Node*) { return sign(x); }
const Node* d_square(const Node* x, const Node*) { return scale(x, 2.0); }
const Node* d_reciprocal(const Node*, const Node* y) { return neg(square(y)); }
const Node* d_sin(const Node* x, const Node*) { return cos(x); }
const Node* d_cos(const Node* x, const Node*) { return neg(sin(x)); }
const Node* d_powc(const Node* x, const Node* y) {
  double p = y->attrs().reals.empty() ? 0.0 : y->attrs().reals[0];
  return scale(powc(x, p - 1.0), p);
}
// clang-format on

template <Partial P>
std::vector<const Node*> unary_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  return {mul(ct, P(n->operand(0), n))};
}
template <Partial P> const Node* unary_jvp(const Node* n, std::span<const Node* const> t) {
  return mul(t[0], P(n->operand(0), n));
}

// Zero almost everywhere: step, sign, comparisons.
std::vector<const Node*> zero_vjp(const Node* n, const Node*, std::span<const bool>) {
  return std::vector<const Node*>(n->num_operands(), nullptr);
}
const Node* zero_jvp(const Node*, std::span<const Node* const>) {
  return nullptr;
}

std::vector<const Node*> add_vjp(const Node*, const Node* ct, std::span<const bool>) {
  return {ct, ct};
}
const Node* add_jvp(const Node*, std::span<const Node* const> t) {
  return add_or(t[0], t[1]);
}

std::vector<const Node*> sub_vjp(const Node*, const Node* ct, std::span<const bool> need) {
  return {ct, need[1] ? neg(ct) : nullptr};
}
const Node* sub_jvp(const Node*, std::span<const Node* const> t) {
  if (!t[1]) return t[0];
  return t[0] ? sub(t[0], t[1]) : neg(t[1]);
}

std::vector<const Node*> mul_vjp(const Node* n, const Node* ct, std::span<const bool> need) {
  const Node *a = n->operand(0), *b = n->operand(1);
  return {need[0] ? mul(ct, b) : nullptr, need[1] ? mul(ct, a) : nullptr};
}
const Node* mul_jvp(const Node* n, std::span<const Node* const> t) {
  const Node *a = n->operand(0), *b = n->operand(1);
  return add_or(t[0] ? mul(t[0], b) : nullptr, t[1] ? mul(a, t[1]) : nullptr);
}

// y = a / b: dy = da / b - y db / b.
std::vector<const Node*> div_vjp(const Node* n, const Node* ct, std::span<const bool> need) {
  const Node* b = n->operand(1);
  return {need[0] ? div(ct, b) : nullptr, need[1] ? neg(div(mul(ct, n), b)) : nullptr};
}
const Node* div_jvp(const Node* n, std::span<const Node* const> t) {
  const Node* b = n->operand(1);
  const Node* num = t[1] ? (t[0] ? sub(t[0], mul(n, t[1])) : neg(mul(n, t[1]))) : t[0];
  return div(num, b);
}

// max/min: the (co)tangent goes to the operand that is selected; ties go to
// the first operand (a subgradient).
template <bool IsMax> const Node* pick_first(const Node* n) {
  return IsMax ? ge(n->operand(0), n->operand(1)) : le(n->operand(0), n->operand(1));
}
template <bool IsMax>
std::vector<const Node*> minmax_vjp(const Node* n, const Node* ct, std::span<const bool> need) {
  const Node *m = pick_first<IsMax>(n), *zero = zeros_like(ct);
  return {need[0] ? select(m, ct, zero) : nullptr, need[1] ? select(m, zero, ct) : nullptr};
}
template <bool IsMax> const Node* minmax_jvp(const Node* n, std::span<const Node* const> t) {
  return select(pick_first<IsMax>(n), or_zeros(t[0], n), or_zeros(t[1], n));
}

std::vector<const Node*> select_vjp(const Node* n, const Node* ct, std::span<const bool> need) {
  const Node *c = n->operand(0), *zero = zeros_like(ct);
  return {nullptr, need[1] ? select(c, ct, zero) : nullptr,
          need[2] ? select(c, zero, ct) : nullptr};
}
const Node* select_jvp(const Node* n, std::span<const Node* const> t) {
  if (!t[1] && !t[2]) return nullptr;
  return select(n->operand(0), or_zeros(t[1], n), or_zeros(t[2], n));
}

} // namespace

void register_elementwise_rules(RuleTable& t) {
  auto set = [&](Op op, VjpRule v, JvpRule j) { t[static_cast<size_t>(op)] = {v, j}; };
#define PLASTIC_UNARY(op, partial) set(Op::op, unary_vjp<partial>, unary_jvp<partial>)
  PLASTIC_UNARY(Neg, d_neg);
  PLASTIC_UNARY(Exp, d_exp);
  PLASTIC_UNARY(Log, d_log);
  PLASTIC_UNARY(Tanh, d_tanh);
  PLASTIC_UNARY(Sigmoid, d_sigmoid);
  PLASTIC_UNARY(Relu, d_relu);
  PLASTIC_UNARY(Elu, d_elu);
  PLASTIC_UNARY(Softplus, d_softplus);
  PLASTIC_UNARY(Sqrt, d_sqrt);
  PLASTIC_UNARY(Abs, d_abs);
  PLASTIC_UNARY(Square, d_square);
  PLASTIC_UNARY(Reciprocal, d_reciprocal);
  PLASTIC_UNARY(Sin, d_sin);
  PLASTIC_UNARY(Cos, d_cos);
  PLASTIC_UNARY(PowC, d_powc);
#undef PLASTIC_UNARY
  for (Op op : {Op::Step, Op::Sign, Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne})
    set(op, zero_vjp, zero_jvp);
  set(Op::Add, add_vjp, add_jvp);
  set(Op::Sub, sub_vjp, sub_jvp);
  set(Op::Mul, mul_vjp, mul_jvp);
  set(Op::Div, div_vjp, div_jvp);
  set(Op::Max, minmax_vjp<true>, minmax_jvp<true>);
  set(Op::Min, minmax_vjp<false>, minmax_jvp<false>);
  set(Op::Select, select_vjp, select_jvp);
}

} // namespace plastic::ad
