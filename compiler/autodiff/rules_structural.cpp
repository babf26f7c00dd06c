// Derivative rules of structural ops. All are linear (except reduce_max,
// which routes through the argmax mask), so the JVP re-applies the op to
// the tangent and the VJP applies the transpose: broadcast ↔ reduce_sum,
// slice ↔ pad, reshape ↔ reshape, concat ↔ slices. The sum over broadcast
// axes — numpy's "unbroadcast" — is exactly the VJP of the explicit
// broadcast node, so no rule needs to know about broadcasting.
#include <algorithm>

#include "compiler/autodiff/rule_util.h"
#include "compiler/autodiff/rules.h"
#include "compiler/ir/ops.h"

namespace plastic::ad {
namespace {

using namespace ir;
using detail::or_zeros;

std::vector<int64_t> kept_axes(const Node* reduce) {
  const auto& r = reduce->attrs().ints;
  std::vector<int64_t> kept;
  for (int64_t a = 0; a < reduce->operand(0)->rank(); ++a)
    if (std::find(r.begin(), r.end(), a) == r.end()) kept.push_back(a);
  return kept;
}

std::vector<const Node*> broadcast_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  const auto& axes = n->attrs().ints;
  std::vector<int64_t> summed;
  for (int64_t a = 0; a < n->rank(); ++a)
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) summed.push_back(a);
  return {reduce_sum(ct, summed)};
}
const Node* broadcast_jvp(const Node* n, std::span<const Node* const> t) {
  return broadcast(t[0], n->shape(), n->attrs().ints);
}

std::vector<const Node*> reduce_sum_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  return {broadcast(ct, n->operand(0)->shape(), kept_axes(n))};
}
const Node* reduce_sum_jvp(const Node* n, std::span<const Node* const> t) {
  return reduce_sum(t[0], n->attrs().ints);
}

// The maximum's (co)tangent flows through the positions equal to it (with
// ties each such position receives it: a subgradient).
const Node* argmax_mask(const Node* n) {
  const Node* x = n->operand(0);
  return eq(x, broadcast(n, x->shape(), kept_axes(n)));
}
std::vector<const Node*> reduce_max_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  const Node* x = n->operand(0);
  return {select(argmax_mask(n), broadcast(ct, x->shape(), kept_axes(n)), zeros_like(x))};
}
const Node* reduce_max_jvp(const Node* n, std::span<const Node* const> t) {
  return reduce_sum(select(argmax_mask(n), t[0], zeros_like(t[0])), n->attrs().ints);
}

std::vector<const Node*> reshape_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  return {reshape(ct, n->operand(0)->shape())};
}
const Node* reshape_jvp(const Node* n, std::span<const Node* const> t) {
  return reshape(t[0], n->shape());
}

std::vector<const Node*> slice_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  const Shape& in = n->operand(0)->shape();
  const auto& start = n->attrs().ints;
  std::vector<int64_t> hi;
  hi.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    hi.push_back(in[i] - start[i] - n->shape()[i]);
  return {pad(ct, start, hi)};
}
const Node* slice_jvp(const Node* n, std::span<const Node* const> t) {
  return slice(t[0], n->attrs().ints, n->shape());
}

std::vector<const Node*> pad_vjp(const Node* n, const Node* ct, std::span<const bool>) {
  const Shape& in = n->operand(0)->shape();
  std::vector<int64_t> lo(n->attrs().ints.begin(),
                          n->attrs().ints.begin() + static_cast<long>(in.size()));
  return {slice(ct, lo, in)};
}
const Node* pad_jvp(const Node* n, std::span<const Node* const> t) {
  return rebuild(n, t);
}

std::vector<const Node*> concat_vjp(const Node* n, const Node* ct, std::span<const bool> need) {
  size_t axis = static_cast<size_t>(n->attrs().ints[0]);
  std::vector<const Node*> out;
  int64_t at = 0;
  for (size_t i = 0; i < n->num_operands(); ++i) {
    const Shape& s = n->operand(i)->shape();
    std::vector<int64_t> start(s.size(), 0);
    start[axis] = at;
    out.push_back(need[i] ? slice(ct, start, s) : nullptr);
    at += s[axis];
  }
  return out;
}
const Node* concat_jvp(const Node* n, std::span<const Node* const> t) {
  std::vector<const Node*> parts;
  parts.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i)
    parts.push_back(or_zeros(t[i], n->operand(i)));
  return concat(parts, n->attrs().ints[0]);
}

} // namespace

void register_structural_rules(RuleTable& t) {
  auto set = [&](Op op, VjpRule v, JvpRule j) { t[static_cast<size_t>(op)] = {v, j}; };
  set(Op::Broadcast, broadcast_vjp, broadcast_jvp);
  set(Op::ReduceSum, reduce_sum_vjp, reduce_sum_jvp);
  set(Op::ReduceMax, reduce_max_vjp, reduce_max_jvp);
  set(Op::Reshape, reshape_vjp, reshape_jvp);
  set(Op::Slice, slice_vjp, slice_jvp);
  set(Op::Pad, pad_vjp, pad_jvp);
  set(Op::Concat, concat_vjp, concat_jvp);
}

} // namespace plastic::ad
