// Typing rules of every op (see type_infer.h).
#include "compiler/ir/type_infer.h"

#include <algorithm>

#include <fmt/format.h>

#include "compiler/ir/einsum.h"
#include "compiler/ir/error.h"

namespace plastic::ir {
namespace {

TypeResult fail(std::string msg) {
  TypeResult r;
  r.error = std::move(msg);
  return r;
}

TypeResult ok(DType t, Shape s) {
  return TypeResult{t, std::move(s), {}};
}

std::string operand_types(std::span<const Node* const> ops) {
  std::string s;
  for (size_t i = 0; i < ops.size(); ++i)
    s += fmt::format("{}{}", i ? ", " : "", type_str(ops[i]->dtype(), ops[i]->shape()));
  return s;
}

bool axis_ok(int64_t axis, int rank) {
  return axis >= 0 && axis < rank;
}

} // namespace

TypeResult infer_type(Op op, std::span<const Node* const> operands, const Attrs& attrs,
                      const Shape& declared, DType declared_dtype) {
  std::string_view name = op_name(op);
  int arity = op_arity(op);
  if (arity >= 0 ? operands.size() != static_cast<size_t>(arity) : operands.empty())
    return fail(fmt::format("{} takes {} operands, got {}", name,
                            arity >= 0 ? std::to_string(arity) : "one or more", operands.size()));
  uint8_t layout = op_attr_layout(op);
  if (!(layout & kAttrStr) && !attrs.str.empty())
    return fail(fmt::format("{} takes no string attribute", name));
  if (!(layout & kAttrInts) && !attrs.ints.empty())
    return fail(fmt::format("{} takes no integer attributes", name));
  if (!(layout & kAttrReals) && !attrs.reals.empty())
    return fail(fmt::format("{} takes no real attributes", name));

  const Node* x = operands.empty() ? nullptr : operands[0];
  switch (op_category(op)) {
  case OpCategory::Leaf:
    if (attrs.str.empty() || attrs.ints.size() != 1)
      return fail(fmt::format("{} leaf needs a name and one slot", name));
    if (declared_dtype == DType::I1) return fail(fmt::format("{} leaf cannot be i1", name));
    return ok(declared_dtype, declared);

  case OpCategory::Constant:
    if (attrs.reals.size() != 1 && static_cast<int64_t>(attrs.reals.size()) != numel(declared))
      return fail(fmt::format("constant of shape {} has {} values", shape_str(declared),
                              attrs.reals.size()));
    return ok(declared_dtype, declared);

  case OpCategory::Unary:
    if (!is_float(x->dtype()))
      return fail(
          fmt::format("{} needs a floating-point operand, got {}", name, operand_types(operands)));
    if (op == Op::PowC && attrs.reals.size() != 1) return fail("powc needs one exponent");
    return ok(x->dtype(), x->shape());

  case OpCategory::Binary:
  case OpCategory::Compare: {
    const Node* y = operands[1];
    if (!is_float(x->dtype()) || x->dtype() != y->dtype())
      return fail(fmt::format("{} needs operands of one floating-point type, got {}", name,
                              operand_types(operands)));
    if (x->shape() != y->shape())
      return fail(fmt::format("{} needs equal shapes (broadcasts are explicit), got {}", name,
                              operand_types(operands)));
    return ok(op_category(op) == OpCategory::Compare ? DType::I1 : x->dtype(), x->shape());
  }

  case OpCategory::Select: {
    const Node *a = operands[1], *b = operands[2];
    if (x->dtype() != DType::I1)
      return fail(fmt::format("select needs an i1 condition, got {}", operand_types(operands)));
    if (a->dtype() != b->dtype() || x->shape() != a->shape() || a->shape() != b->shape())
      return fail(fmt::format("select needs equal shapes and branch types, got {}",
                              operand_types(operands)));
    return ok(a->dtype(), a->shape());
  }

  case OpCategory::Broadcast: {
    const auto& axes = attrs.ints;
    if (static_cast<int>(axes.size()) != x->rank())
      return fail(fmt::format("broadcast of rank-{} operand needs {} axes, got {}", x->rank(),
                              x->rank(), axes.size()));
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!axis_ok(axes[i], static_cast<int>(declared.size())) || (i && axes[i] <= axes[i - 1]))
        return fail(fmt::format("broadcast axes must be increasing and below {}", declared.size()));
      if (declared[static_cast<size_t>(axes[i])] != x->shape()[i])
        return fail(fmt::format("cannot broadcast {} to {}: axis {} is {} but output axis {} "
                                "is {}",
                                shape_str(x->shape()), shape_str(declared), i, x->shape()[i],
                                axes[i], declared[static_cast<size_t>(axes[i])]));
    }
    return ok(x->dtype(), declared);
  }

  case OpCategory::Reduce: {
    if (!is_float(x->dtype())) return fail(fmt::format("{} needs a float operand", name));
    Shape out;
    for (size_t i = 0; i < attrs.ints.size(); ++i)
      if (!axis_ok(attrs.ints[i], x->rank()) || (i && attrs.ints[i] <= attrs.ints[i - 1]))
        return fail(
            fmt::format("{} axes must be increasing and below the rank {}", name, x->rank()));
    for (int a = 0; a < x->rank(); ++a)
      if (std::find(attrs.ints.begin(), attrs.ints.end(), a) == attrs.ints.end())
        out.push_back(x->shape()[static_cast<size_t>(a)]);
    return ok(x->dtype(), out);
  }

  case OpCategory::Contract: {
    EinsumSpec spec;
    try {
      spec = EinsumSpec::parse(attrs.str);
    } catch (const IRError& e) {
      return fail(e.what());
    }
    std::vector<const Shape*> shapes;
    for (const Node* o : operands) {
      if (o->dtype() != x->dtype() || !is_float(o->dtype()))
        return fail(fmt::format("contract needs operands of one float type, got {}",
                                operand_types(operands)));
      shapes.push_back(&o->shape());
    }
    std::vector<int64_t> size;
    std::string err = check_einsum(spec, shapes, size);
    if (!err.empty()) return fail(err);
    Shape out;
    for (int l : spec.output)
      out.push_back(size[static_cast<size_t>(l)]);
    return ok(x->dtype(), out);
  }

  case OpCategory::Reshape:
    if (numel(declared) != x->numel())
      return fail(fmt::format("cannot reshape {} ({} elements) to {} ({} elements)",
                              shape_str(x->shape()), x->numel(), shape_str(declared),
                              numel(declared)));
    return ok(x->dtype(), declared);

  case OpCategory::Slice: {
    if (static_cast<int>(attrs.ints.size()) != x->rank() ||
        static_cast<int>(declared.size()) != x->rank())
      return fail(
          fmt::format("slice of {} needs one start and size per axis", shape_str(x->shape())));
    for (size_t i = 0; i < declared.size(); ++i)
      if (attrs.ints[i] < 0 || attrs.ints[i] + declared[i] > x->shape()[i])
        return fail(fmt::format("slice [{}, {}) of axis {} is outside [0, {})", attrs.ints[i],
                                attrs.ints[i] + declared[i], i, x->shape()[i]));
    return ok(x->dtype(), declared);
  }

  case OpCategory::Pad: {
    if (static_cast<int>(attrs.ints.size()) != 2 * x->rank())
      return fail(
          fmt::format("pad of {} needs low and high widths per axis", shape_str(x->shape())));
    Shape out = x->shape();
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t lo = attrs.ints[i], hi = attrs.ints[out.size() + i];
      if (lo < 0 || hi < 0) return fail("pad widths must be non-negative");
      out[i] += lo + hi;
    }
    return ok(x->dtype(), out);
  }

  case OpCategory::Concat: {
    if (attrs.ints.size() != 1 || !axis_ok(attrs.ints[0], x->rank()))
      return fail(fmt::format("concat needs an axis below the rank {}", x->rank()));
    size_t axis = static_cast<size_t>(attrs.ints[0]);
    Shape out = x->shape();
    out[axis] = 0;
    for (const Node* o : operands) {
      Shape s = o->shape();
      if (o->dtype() != x->dtype() || s.size() != out.size())
        return fail(
            fmt::format("concat operands differ in type or rank: {}", operand_types(operands)));
      out[axis] += s[axis];
      s[axis] = out[axis];
      if (s != out)
        return fail(
            fmt::format("concat operands differ off axis {}: {}", axis, operand_types(operands)));
    }
    return ok(x->dtype(), out);
  }

  case OpCategory::Composite: {
    if (!is_float(x->dtype())) return fail(fmt::format("{} needs a float operand", name));
    if (attrs.ints.size() != 1 || !axis_ok(attrs.ints[0], x->rank()))
      return fail(fmt::format("{} needs one axis below the rank {} of {}", name, x->rank(),
                              shape_str(x->shape())));
    if (op == Op::LayerNorm && (attrs.reals.size() != 1 || !(attrs.reals[0] >= 0)))
      return fail("layernorm needs one non-negative eps");
    Shape out = x->shape();
    if (op == Op::LogSumExp) out.erase(out.begin() + attrs.ints[0]);
    return ok(x->dtype(), out);
  }
  }
  return fail(fmt::format("unknown op {}", name));
}

} // namespace plastic::ir
