// The general contraction (einsum) as one loop nest: loops over the output
// labels, and when labels are summed, an accumulator register reset per
// output element and updated by fma in loops over the summed labels. Every
// operand is addressed per axis from the loop of each of its labels, so
// transposes, batched heads, outer products and full contractions are all
// the same code; fused operand chains are evaluated in the innermost loop
// (the schedule only fuses those that are cheap to re-read).
//
// Summed labels run in label order, as the interpreter's walk does, so the
// two sum in the same order.
#include <algorithm>

#include "compiler/ir/einsum.h"
#include "compiler/kernels/emitter.h"

namespace plastic::kernels::detail {

using codegen::Expr;
using codegen::Index;

void Emitter::emit_contract(const ir::Node* n, const Sink& sink) {
  ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  size_t nl = static_cast<size_t>(spec.label_bound());
  std::vector<int64_t> size(nl, 1);
  for (size_t k = 0; k < n->num_operands(); ++k)
    for (size_t a = 0; a < spec.inputs[k].size(); ++a)
      size[static_cast<size_t>(spec.inputs[k][a])] = n->operand(k)->shape()[a];
  std::vector<int> summed;
  for (size_t l = 0; l < nl; ++l) {
    bool used = false;
    for (const auto& in : spec.inputs)
      used = used || std::find(in.begin(), in.end(), static_cast<int>(l)) != in.end();
    if (used && std::find(spec.output.begin(), spec.output.end(), static_cast<int>(l)) == spec.output.end())
      summed.push_back(static_cast<int>(l));
  }
  ir::Shape sum_shape;
  for (int l : summed)
    sum_shape.push_back(size[static_cast<size_t>(l)]);

  std::vector<Index> label(nl);
  auto operand = [&](size_t k) {
    std::vector<Index> axes;
    for (int l : spec.inputs[k])
      axes.push_back(label[static_cast<size_t>(l)]);
    return eval(n->operand(k), Pos::at_axes(std::move(axes)));
  };
  // v0 * v1 * ... * v(m-2), or nothing for one operand.
  auto leading_product = [&]() {
    Expr p;
    for (size_t k = 0; k + 1 < n->num_operands(); ++k)
      p = p.valid() ? b.mul(p, operand(k)) : operand(k);
    return p;
  };

  for_each(n->shape(), [&](std::vector<Index> out) {
    for (size_t a = 0; a < out.size(); ++a)
      label[static_cast<size_t>(spec.output[a])] = out[a];
    Index flat = flat_of(Pos::at_axes(out), n->shape());
    size_t last = n->num_operands() - 1;
    if (summed.empty()) {
      Expr p = leading_product();
      sink(flat, p.valid() ? b.mul(p, operand(last)) : operand(last));
      return;
    }
    codegen::Var acc = var("acc", uniform(n));
    b.assign(acc, b.constant(0));
    for_each(sum_shape, [&](std::vector<Index> inner) {
      for (size_t s = 0; s < summed.size(); ++s)
        label[static_cast<size_t>(summed[s])] = inner[s];
      Expr p = leading_product();
      b.assign(acc, p.valid() ? b.fma(p, operand(last), b.read(acc)) : b.add(b.read(acc), operand(last)));
    });
    sink(flat, b.read(acc));
  });
}

Expr Emitter::eval_product(const ir::Node* n, const Pos& pos) {
  ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  std::vector<Index> out = axes_of(pos, n);
  std::vector<Index> label(static_cast<size_t>(spec.label_bound()));
  for (size_t a = 0; a < out.size(); ++a)
    label[static_cast<size_t>(spec.output[a])] = out[a];
  // Same association as emit_contract: ((v0 * v1) * ...) * v(m-1).
  Expr p;
  for (size_t k = 0; k < n->num_operands(); ++k) {
    std::vector<Index> axes;
    for (int l : spec.inputs[k])
      axes.push_back(label[static_cast<size_t>(l)]);
    Expr v = eval(n->operand(k), Pos::at_axes(std::move(axes)));
    p = p.valid() ? b.mul(p, v) : v;
  }
  return p;
}

} // namespace plastic::kernels::detail
