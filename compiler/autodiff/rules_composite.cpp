// Derivative rules of the composites, in their compact closed forms.
//
//   softmax   y = softmax(x):   J = diag(y) − y yᵀ          (symmetric)
//   logsumexp y = lse(x):       J = softmax(x)ᵀ
//   layernorm y = (x − μ)·r, r = 1/√(var + eps):
//             J = r (I − 11ᵀ/n − y yᵀ/n)                  (symmetric)
// Symmetric Jacobians make the VJP and the JVP the same expression, so each
// has one helper used by both modes.
#include "compiler/autodiff/rule_util.h"
#include "compiler/autodiff/rules.h"
#include "compiler/ir/ops.h"

namespace plastic::ad {
namespace {

using namespace ir;
using detail::along;

int64_t axis_of(const Node* n) {
  return n->attrs().ints[0];
}

// y ⊙ (v − Σ_axis(v ⊙ y))
const Node* softmax_apply(const Node* y, const Node* v, int64_t axis) {
  return mul(y, sub(v, along(reduce_sum(mul(v, y), {axis}), y, axis)));
}

std::vector<const Node*> softmax_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  return {softmax_apply(n, ct, axis_of(n))};
}
const Node* softmax_jvp(const Node* n, std::span<const Node* const> t) {
  return softmax_apply(n, t[0], axis_of(n));
}

std::vector<const Node*> logsumexp_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  const Node* x = n->operand(0);
  return {mul(softmax(x, axis_of(n)), along(ct, x, axis_of(n)))};
}
const Node* logsumexp_jvp(const Node* n, std::span<const Node* const> t) {
  const Node* x = n->operand(0);
  return reduce_sum(mul(softmax(x, axis_of(n)), t[0]), {axis_of(n)});
}

// r (v − mean(v) − y mean(v y)), with r recomputed from x.
const Node* layernorm_apply(const Node* y, const Node* v) {
  const Node* x = y->operand(0);
  int64_t axis = axis_of(y);
  double eps = y->attrs().reals[0];
  const Node* xc = sub(x, along(mean(x, {axis}), x, axis));
  const Node* r = reciprocal(sqrt(shift(mean(square(xc), {axis}), eps)));
  const Node* inner =
      sub(sub(v, along(mean(v, {axis}), v, axis)), mul(y, along(mean(mul(v, y), {axis}), y, axis)));
  return mul(along(r, x, axis), inner);
}

std::vector<const Node*> layernorm_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  return {layernorm_apply(n, ct)};
}
const Node* layernorm_jvp(const Node* n, std::span<const Node* const> t) {
  return layernorm_apply(n, t[0]);
}

} // namespace

void register_composite_rules(RuleTable& t) {
  t[static_cast<size_t>(Op::Softmax)] = {softmax_vjp, softmax_jvp};
  t[static_cast<size_t>(Op::LogSumExp)] = {logsumexp_vjp, logsumexp_jvp};
  t[static_cast<size_t>(Op::LayerNorm)] = {layernorm_vjp, layernorm_jvp};
}

} // namespace plastic::ad
