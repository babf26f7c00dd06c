// The emitter's core: positions, loop nests, leaf bindings, and the
// dispatch of eval()/emit_root() to the per-family files (emit_*.cpp).
//
// eval() is recursive over fused operands only; the schedule bounds the
// depth of fused chains, so the recursion stays shallow however deep the
// DAG is.
#include <fmt/format.h>

#include "compiler/loopgen/emitter.h"
#include "compiler/loops/error.h"

namespace plastic::loopgen::detail {

using ir::OpCategory;
using loops::Expr;
using loops::Index;

Emitter::Emitter(loops::Builder& builder, const ir::Function& function, const Schedule& schedule,
                 std::span<const InputBinding> inputs)
    : b(builder), fn(function), sched(schedule), inputs_(inputs) {}

std::string Emitter::describe(const ir::Node* n) {
  return fmt::format("%{} = {} {}", n->id(), ir::op_name(n->op()),
                     ir::type_str(n->dtype(), n->shape()));
}

Index Emitter::flat_of(const Pos& pos, const ir::Shape& shape) {
  if (pos.flat) return pos.idx.empty() ? Index(0) : pos.idx[0];
  std::vector<int64_t> strides = ir::strides_of(shape);
  Index flat(0);
  for (size_t a = 0; a < pos.idx.size(); ++a)
    if (shape[a] > 1) flat = flat + pos.idx[a] * strides[a];
  return flat;
}

std::vector<Index> Emitter::axes_of(const Pos& pos, const ir::Node* n) const {
  if (!pos.flat) return pos.idx;
  const Index flat = pos.idx.empty() ? Index(0) : pos.idx[0];
  if (n->rank() == 0) return {};
  if (n->rank() == 1) return {flat};
  // A constant offset splits into constant per-axis indices; a loop-carried
  // one cannot be split affinely (the schedule prevents that case).
  PLASTIC_CHECK(flat.is_constant(),
                "kernel emitter: {} needs per-axis indices but is addressed by a flat "
                "loop offset (a scheduling bug)",
                describe(n));
  std::vector<Index> axes(static_cast<size_t>(n->rank()));
  int64_t rest = flat.offset;
  for (size_t a = axes.size(); a-- > 0;) {
    axes[a] = Index(rest % n->shape()[a]);
    rest /= n->shape()[a];
  }
  return axes;
}

void Emitter::for_each(const ir::Shape& shape,
                       const std::function<void(std::vector<Index>)>& body) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t n : shape)
    ranges.emplace_back(0, n);
  for_box(ranges, body);
}

void Emitter::for_box(const std::vector<std::pair<int64_t, int64_t>>& ranges,
                      const std::function<void(std::vector<Index>)>& body) {
  std::vector<Index> idx(ranges.size());
  std::function<void(size_t)> level = [&](size_t a) {
    if (a == ranges.size()) {
      body(idx);
      return;
    }
    auto [lo, hi] = ranges[a];
    if (hi - lo == 1) {
      idx[a] = Index(lo);
      level(a + 1);
      return;
    }
    b.loop(fmt::format("i{}", loop_counter_++), lo, hi, [&](Index i) {
      idx[a] = std::move(i);
      level(a + 1);
    });
    --loop_counter_;
  };
  level(0);
}

void Emitter::for_flat(int64_t n, const std::function<void(Index)>& body) {
  if (n == 1) {
    body(Index(0));
    return;
  }
  b.loop(fmt::format("i{}", loop_counter_++), 0, n, [&](Index i) { body(std::move(i)); });
  --loop_counter_;
}

loops::Var Emitter::var(const std::string& role, bool is_uniform) {
  std::string key = role + (is_uniform ? "_u" : "_v");
  auto it = vars_.find(key);
  if (it != vars_.end()) return it->second;
  loops::Var v = b.var(key, is_uniform ? loops::Lanes::Uniform : loops::Lanes::Varying);
  vars_.emplace(key, v);
  return v;
}

Expr Emitter::eval(const ir::Node* n, const Pos& pos) {
  auto it = stored_.find(n);
  if (it != stored_.end())
    return b.load(it->second.buf, flat_of(pos, n->shape()) + it->second.offset);
  return eval_op(n, pos);
}

Expr Emitter::eval_leaf(const ir::Node* n, const Pos& pos) {
  const InputBinding& in = inputs_[fn.input_index(n->name())];
  switch (in.kind) {
  case InputBinding::Kind::Buffer:
    return b.load(in.buffer, flat_of(pos, n->shape()) + in.offset);
  case InputBinding::Kind::Scalar:
    return in.scalar;
  case InputBinding::Kind::Zero:
    return b.constant(0);
  }
  return b.constant(0);
}

Expr Emitter::eval_op(const ir::Node* n, const Pos& pos) {
  switch (ir::op_category(n->op())) {
  case OpCategory::Leaf:
    return eval_leaf(n, pos);
  case OpCategory::Constant: {
    if (n->is_splat()) return b.constant(n->attrs().reals[0]);
    Index flat = flat_of(pos, n->shape());
    PLASTIC_CHECK(flat.is_constant(), "kernel emitter: {} read in a loop without a buffer",
                  describe(n));
    return b.constant(n->attrs().reals.at(static_cast<size_t>(flat.offset)));
  }
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::Select:
    return eval_elementwise(n, pos);
  case OpCategory::Broadcast:
  case OpCategory::Reshape:
  case OpCategory::Slice:
    return eval_view(n, pos);
  case OpCategory::Contract:
    if (!contract_sums(n)) return eval_product(n, pos);
    [[fallthrough]];
  default:
    PLASTIC_CHECK(false, "kernel emitter: {} is used before it is computed (a scheduling bug)",
                  describe(n));
  }
  return {};
}

void Emitter::emit_root(const ir::Node* n, const Sink& sink) {
  PLASTIC_CHECK(n->dtype() != ir::DType::I1 || n->is_constant(),
                "kernel emitter: {} is a mask; masks (i1) may only feed select", describe(n));
  switch (ir::op_category(n->op())) {
  case OpCategory::Contract:
    return emit_contract(n, sink);
  case OpCategory::Reduce:
    return emit_reduce(n, sink);
  case OpCategory::Composite:
    return emit_composite(n, sink);
  case OpCategory::Pad:
    return emit_pad(n, sink);
  case OpCategory::Concat:
    return emit_concat(n, sink);
  case OpCategory::Constant:
    if (!n->is_splat()) return emit_constant(n, sink);
    break;
  default:
    break;
  }
  // Leaves, splats, elementwise ops and views: one loop nest, per-axis
  // only when a view below needs it.
  if (sched.op_needs_axes(n)) {
    for_each(n->shape(), [&](std::vector<Index> axes) {
      Pos pos = Pos::at_axes(std::move(axes));
      sink(flat_of(pos, n->shape()), eval_op(n, pos));
    });
  } else {
    for_flat(n->numel(), [&](const Index& i) { sink(i, eval_op(n, Pos::at_flat(i))); });
  }
}

} // namespace plastic::loopgen::detail
