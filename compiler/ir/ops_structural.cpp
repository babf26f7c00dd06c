// Factories of structural ops: broadcasts, reductions, reshape, slice, pad,
// concat. They fold splat constants and collapse chains of the same op
// (reshape∘reshape, broadcast∘broadcast, slice∘slice) into one node.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/ir/ops_internal.h"
#include "compiler/ir/scalar_math.h"

namespace plastic::ir {

const Node* broadcast(const Node* x, Shape shape, std::vector<int64_t> axes) {
  Attrs attrs{{}, axes, {}};
  TypeResult t = detail::check(Op::Broadcast, {x}, attrs, shape);
  if (shape == x->shape()) return x;
  if (x->is_splat()) return x->context().constant(x->attrs().reals[0], shape, x->dtype());
  if (x->op() == Op::Broadcast) {
    std::vector<int64_t> composed;
    for (int64_t a : x->attrs().ints)
      composed.push_back(axes[static_cast<size_t>(a)]);
    return broadcast(x->operand(0), std::move(shape), std::move(composed));
  }
  return detail::make(Op::Broadcast, std::move(t), {x}, std::move(attrs));
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw IRError(fmt::format("shapes {} and {} do not broadcast", shape_str(a), shape_str(b)));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

const Node* broadcast_to(const Node* x, const Shape& shape) {
  Context& ctx = x->context();
  size_t R = shape.size(), r = static_cast<size_t>(x->rank());
  auto bad = [&] {
    return IRError(
        fmt::format("cannot broadcast {} to {}", shape_str(x->shape()), shape_str(shape)),
        ctx.current_location());
  };
  if (r > R) throw bad();
  std::vector<int64_t> axes;
  Shape kept;
  for (size_t i = 0; i < r; ++i) {
    size_t axis = R - r + i;
    if (x->shape()[i] == shape[axis]) {
      axes.push_back(static_cast<int64_t>(axis));
      kept.push_back(x->shape()[i]);
    } else if (x->shape()[i] != 1) {
      throw bad();
    }
  }
  const Node* y = kept.size() == r ? x : reshape(x, kept);
  return broadcast(y, shape, std::move(axes));
}

namespace {

const Node* reduce(Op op, const Node* x, std::vector<int64_t> axes) {
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw IRError(fmt::format("{}: repeated axis", op_name(op)), x->context().current_location());
  Attrs attrs{{}, axes, {}};
  TypeResult t = detail::check(op, {x}, attrs);
  if (axes.empty()) return x;
  if (x->is_splat()) {
    double v = x->attrs().reals[0];
    if (op == Op::ReduceSum) {
      int64_t count = x->numel() / std::max<int64_t>(numel(t.shape), 1);
      v = x->dtype() == DType::F32 ? static_cast<double>(static_cast<float>(v) * count)
                                   : v * static_cast<double>(count);
    }
    return x->context().constant(v, t.shape, x->dtype());
  }
  return detail::make(op, std::move(t), {x}, std::move(attrs));
}

} // namespace

const Node* reduce_sum(const Node* x, std::vector<int64_t> axes) {
  return reduce(Op::ReduceSum, x, std::move(axes));
}
const Node* reduce_max(const Node* x, std::vector<int64_t> axes) {
  return reduce(Op::ReduceMax, x, std::move(axes));
}

const Node* mean(const Node* x, std::vector<int64_t> axes) {
  const Node* s = reduce_sum(x, std::move(axes));
  int64_t count = x->numel() / std::max<int64_t>(s->numel(), 1);
  return scale(s, 1.0 / static_cast<double>(count));
}

const Node* reshape(const Node* x, Shape shape) {
  TypeResult t = detail::check(Op::Reshape, {x}, {}, shape);
  if (shape == x->shape()) return x;
  if (x->op() == Op::Reshape) return reshape(x->operand(0), std::move(shape));
  if (x->is_splat()) return x->context().constant(x->attrs().reals[0], shape, x->dtype());
  if (x->is_constant()) return x->context().constant(x->attrs().reals, shape, x->dtype());
  return detail::make(Op::Reshape, std::move(t), {x}, {});
}

const Node* slice(const Node* x, std::vector<int64_t> starts, Shape sizes) {
  Attrs attrs{{}, starts, {}};
  TypeResult t = detail::check(Op::Slice, {x}, attrs, sizes);
  if (sizes == x->shape()) return x;
  if (x->is_splat()) return x->context().constant(x->attrs().reals[0], sizes, x->dtype());
  if (x->op() == Op::Slice) {
    for (size_t i = 0; i < starts.size(); ++i)
      starts[i] += x->attrs().ints[i];
    return slice(x->operand(0), std::move(starts), std::move(sizes));
  }
  return detail::make(Op::Slice, std::move(t), {x}, std::move(attrs));
}

const Node* pad(const Node* x, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi) {
  Attrs attrs;
  attrs.ints = lo;
  attrs.ints.insert(attrs.ints.end(), hi.begin(), hi.end());
  TypeResult t = detail::check(Op::Pad, {x}, attrs);
  if (std::all_of(attrs.ints.begin(), attrs.ints.end(), [](int64_t v) { return v == 0; })) return x;
  return detail::make(Op::Pad, std::move(t), {x}, std::move(attrs));
}

const Node* concat(std::vector<const Node*> xs, int64_t axis) {
  if (xs.empty()) throw IRError("concat of nothing");
  Attrs attrs{{}, {axis}, {}};
  TypeResult t = detail::check(Op::Concat, xs, attrs);
  if (xs.size() == 1) return xs[0];
  return detail::make(Op::Concat, std::move(t), std::move(xs), std::move(attrs));
}

} // namespace plastic::ir
