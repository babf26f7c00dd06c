// Structural ops: views (broadcast, reshape, slice) as index arithmetic on
// their operand's position, and the materialising ones (pad, concat,
// non-splat constants) as loop nests that produce each element once.
//
// Pad cannot test an induction variable (the loop IR has no index values),
// so it is split into boxes: the zero border, one slab per axis and side,
// and the interior copied from the operand. Every output element is still
// produced exactly once, as sinks into accumulating outputs require.
#include "compiler/loopgen/emitter.h"
#include "compiler/loops/error.h"

namespace plastic::loopgen::detail {

using ir::OpCategory;
using loops::Expr;
using loops::Index;

Expr Emitter::eval_view(const ir::Node* n, const Pos& pos) {
  const ir::Node* x = n->operand(0);
  const auto& ints = n->attrs().ints;
  switch (ir::op_category(n->op())) {
  case OpCategory::Broadcast: {
    if (x->rank() == 0) return eval(x, Pos::at_flat(Index(0)));
    std::vector<Index> out = axes_of(pos, n), in;
    for (int64_t axis : ints)
      in.push_back(out.at(static_cast<size_t>(axis)));
    return eval(x, Pos::at_axes(std::move(in)));
  }
  case OpCategory::Reshape:
    return eval(x, Pos::at_flat(flat_of(pos, n->shape())));
  case OpCategory::Slice: {
    if (pos.flat && !sched.op_needs_axes(n)) {
      // Only the first axis is cut: the flat offset shifts by a constant.
      int64_t shift = x->rank() == 0 ? 0 : ints[0] * ir::strides_of(x->shape())[0];
      return eval(x, Pos::at_flat(flat_of(pos, n->shape()) + shift));
    }
    std::vector<Index> in = axes_of(pos, n);
    for (size_t a = 0; a < in.size(); ++a)
      in[a] = in[a] + ints[a];
    return eval(x, Pos::at_axes(std::move(in)));
  }
  default:
    PLASTIC_CHECK(false, "kernel emitter: {} is not a view", describe(n));
  }
  return {};
}

void Emitter::emit_pad(const ir::Node* n, const Sink& sink) {
  const ir::Node* x = n->operand(0);
  const auto& ints = n->attrs().ints;
  size_t r = static_cast<size_t>(n->rank());
  const ir::Shape& out = n->shape();
  std::vector<int64_t> lo(ints.begin(), ints.begin() + static_cast<long>(r));
  for (int64_t w : ints)
    PLASTIC_CHECK(w >= 0, "kernel emitter: {} has a negative pad width", describe(n));
  auto out_pos = [&](std::vector<Index> axes) {
    return flat_of(Pos::at_axes(std::move(axes)), out);
  };

  // The border: slab (axis k, side) spans the interior on axes < k, one side
  // on axis k and everything on axes > k; the slabs tile the border.
  for (size_t k = 0; k < r; ++k) {
    int64_t inner_end = lo[k] + x->shape()[k];
    for (auto side : {std::pair<int64_t, int64_t>{0, lo[k]}, {inner_end, out[k]}}) {
      if (side.second <= side.first) continue;
      std::vector<std::pair<int64_t, int64_t>> box;
      box.reserve(r);
      for (size_t a = 0; a < r; ++a)
        box.push_back(a < k    ? std::pair<int64_t, int64_t>{lo[a], lo[a] + x->shape()[a]}
                      : a == k ? side
                               : std::pair<int64_t, int64_t>{0, out[a]});
      for_box(box, [&](std::vector<Index> axes) { sink(out_pos(std::move(axes)), b.constant(0)); });
    }
  }
  for_each(x->shape(), [&](std::vector<Index> axes) {
    std::vector<Index> shifted = axes;
    for (size_t a = 0; a < r; ++a)
      shifted[a] = shifted[a] + lo[a];
    sink(out_pos(std::move(shifted)), eval(x, Pos::at_axes(std::move(axes))));
  });
}

void Emitter::emit_concat(const ir::Node* n, const Sink& sink) {
  size_t axis = static_cast<size_t>(n->axis());
  int64_t at = 0;
  for (const ir::Node* part : n->operands()) {
    for_each(part->shape(), [&](std::vector<Index> axes) {
      std::vector<Index> out = axes;
      out[axis] = out[axis] + at;
      sink(flat_of(Pos::at_axes(std::move(out)), n->shape()),
           eval(part, Pos::at_axes(std::move(axes))));
    });
    at += part->shape()[axis];
  }
}

void Emitter::emit_constant(const ir::Node* n, const Sink& sink) {
  // One store per element: the data has to come from somewhere, and the
  // statement count stays proportional to the constant's size.
  const std::vector<double>& values = n->attrs().reals;
  for (size_t i = 0; i < values.size(); ++i)
    sink(Index(static_cast<int64_t>(i)), b.constant(values[i]));
}

} // namespace plastic::loopgen::detail
