// The general contraction (einsum) as one loop nest: loops over the output
// labels, and when labels are summed, accumulator registers reset per block
// of output elements and updated by fma in loops over the summed labels
// (register blocking: see kContractBlock and the comment below). Every
// operand is addressed per axis from the loop of each of its labels, so
// transposes, batched heads, outer products and full contractions are all
// the same code; fused operand chains are evaluated in the innermost loop
// (the schedule only fuses those that are cheap to re-read).
//
// Summed labels run in label order, as the interpreter's walk does, so the
// two sum in the same order.
#include <algorithm>

#include "compiler/ir/einsum.h"
#include "compiler/loopgen/emitter.h"
#include "compiler/loops/error.h"

#include <fmt/format.h>

namespace plastic::loopgen::detail {

using loops::Expr;
using loops::Index;

namespace {

// The labels of a contraction: every label's extent, and the summed ones
// (used by an operand, absent from the output) in label order.
struct ContractLabels {
  std::vector<int64_t> size;
  std::vector<int> summed;
  ir::Shape sum_shape;
};

ContractLabels contract_labels(const ir::Node* n, const ir::EinsumSpec& spec) {
  ContractLabels c;
  const size_t nl = static_cast<size_t>(spec.label_bound());
  c.size.assign(nl, 1);
  for (size_t k = 0; k < n->num_operands(); ++k)
    for (size_t a = 0; a < spec.inputs[k].size(); ++a)
      c.size[static_cast<size_t>(spec.inputs[k][a])] = n->operand(k)->shape()[a];
  for (size_t l = 0; l < nl; ++l) {
    bool used = false;
    for (const auto& in : spec.inputs)
      used = used || std::find(in.begin(), in.end(), static_cast<int>(l)) != in.end();
    if (used &&
        std::find(spec.output.begin(), spec.output.end(), static_cast<int>(l)) == spec.output.end())
      c.summed.push_back(static_cast<int>(l));
  }
  for (int l : c.summed)
    c.sum_shape.push_back(c.size[static_cast<size_t>(l)]);
  return c;
}

} // namespace

void Emitter::emit_contract(const ir::Node* n, const Sink& sink) {
  const ir::Node* const one[] = {n};
  emit_contracts(one, std::span<const Sink>(&sink, 1));
}

// Members of a group (contract_groups.h) share the einsum, the shapes and
// so every loop; each has its own operands, scalars and accumulators. A
// single contraction is a group of one.
void Emitter::emit_contracts(std::span<const ir::Node* const> ns, std::span<const Sink> sinks) {
  const ir::Node* n = ns.front();
  ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  const size_t nl = static_cast<size_t>(spec.label_bound());
  const ContractLabels labels = contract_labels(n, spec);
  const std::vector<int>& summed = labels.summed;
  const ir::Shape& sum_shape = labels.sum_shape;
  PLASTIC_CHECK(ns.size() == 1 || !summed.empty(),
                "kernel emitter: {} grouped without a summed label", describe(n));

  std::vector<Index> label(nl);
  // A fused operand that is a tensor times a scalar (a step VJP's h b_i
  // z1_bar) is summed without its scalar, which then scales each sum once.
  struct Member {
    std::vector<const ir::Node*> read;
    std::vector<const ir::Node*> scalars;
  };
  std::vector<Member> members(ns.size());
  for (size_t j = 0; j < ns.size(); ++j) {
    Member& m = members[j];
    for (const ir::Node* o : ns[j]->operands()) {
      m.read.push_back(o);
      if (summed.empty()) continue;
      if (std::optional<ScaledOperand> scaled = sched.summed_read(o)) {
        m.read.back() = scaled->tensor;
        m.scalars.push_back(scaled->scalar);
      }
    }
  }
  auto operand = [&](size_t j, size_t k) {
    std::vector<Index> axes;
    for (int l : spec.inputs[k])
      axes.push_back(label[static_cast<size_t>(l)]);
    return eval(members[j].read[k], Pos::at_axes(std::move(axes)));
  };
  auto scaled = [&](size_t j, Expr sum) {
    for (const ir::Node* c : members[j].scalars)
      sum = b.mul(sum, eval(c, Pos::at_flat(Index(0))));
    return sum;
  };
  // v0 * v1 * ... * v(m-2), or nothing for one operand.
  auto leading_product = [&](size_t j) {
    Expr p;
    for (size_t k = 0; k + 1 < n->num_operands(); ++k)
      p = p.valid() ? b.mul(p, operand(j, k)) : operand(j, k);
    return p;
  };

  const size_t last = n->num_operands() - 1;
  auto set_outputs = [&](const std::vector<Index>& out) {
    for (size_t a = 0; a < out.size(); ++a)
      label[static_cast<size_t>(spec.output[a])] = out[a];
  };
  if (summed.empty()) {
    for_each(n->shape(), [&](const std::vector<Index>& out) {
      set_outputs(out);
      Expr p = leading_product(0);
      sinks[0](flat_of(Pos::at_axes(out), n->shape()),
               p.valid() ? b.mul(p, operand(0, last)) : operand(0, last));
    });
    return;
  }

  // Register blocking: `width` consecutive elements of the last output axis
  // are summed together, each in its own accumulator. An operand that does
  // not depend on that axis (the vector of a mat-vec, the shared weight row
  // of a batched one) is then loaded once per summed index for all of them
  // instead of once per element, and the independent fma chains hide the
  // fma latency that a single accumulator per element exposes. A group's
  // members add their accumulators side by side, so an operand they share
  // is loaded once for all. Each element's own sum still runs over the
  // summed labels in label order. for_contract_blocks picks the blocks;
  // sum_block sums one.
  const size_t rank = n->shape().size();
  auto sum_block = [&](std::vector<Index> out, int64_t lanes_in_block) {
    const size_t width = static_cast<size_t>(lanes_in_block);
    std::vector<loops::Var> acc; // member j's r-th element at j * width + r
    for (size_t j = 0; j < ns.size(); ++j)
      for (size_t r = 0; r < width; ++r) {
        acc.push_back(var(fmt::format("acc{}", acc.size()), uniform(ns[j])));
        b.assign(acc.back(), b.constant(0));
      }
    const Index base = rank ? out[rank - 1] : Index(0);
    for_each(sum_shape, [&](std::vector<Index> inner) {
      for (size_t s = 0; s < summed.size(); ++s)
        label[static_cast<size_t>(summed[s])] = inner[s];
      for (size_t r = 0; r < width; ++r) {
        if (rank) out[rank - 1] = base + static_cast<int64_t>(r);
        set_outputs(out);
        for (size_t j = 0; j < ns.size(); ++j) {
          loops::Var a = acc[j * width + r];
          Expr p = leading_product(j);
          b.assign(a, p.valid() ? b.fma(p, operand(j, last), b.read(a))
                                : b.add(b.read(a), operand(j, last)));
        }
      }
    });
    for (size_t j = 0; j < ns.size(); ++j)
      for (size_t r = 0; r < width; ++r) {
        if (rank) out[rank - 1] = base + static_cast<int64_t>(r);
        sinks[j](flat_of(Pos::at_axes(out), n->shape()), scaled(j, b.read(acc[j * width + r])));
      }
  };
  if (rank == 0) { // a full contraction: one sum
    sum_block({}, 1);
    return;
  }
  for_contract_blocks(n->shape(), ns.size() == 1 ? kSoloContractBlock : kContractBlock, sum_block);
}

void Emitter::for_contract_blocks(const ir::Shape& shape, int64_t widest,
                                  const std::function<void(std::vector<Index>, int64_t)>& block) {
  const size_t rank = shape.size();
  const int64_t extent = shape[rank - 1];
  std::vector<std::pair<int64_t, int64_t>> outer;
  for (size_t a = 0; a + 1 < rank; ++a)
    outer.emplace_back(0, shape[a]);
  std::vector<int64_t> widths{widest};
  if (widest > kContractBlock) widths.push_back(kContractBlock);
  if (widths.back() > 1) widths.push_back(1);
  for_box(outer, [&](std::vector<Index> out) {
    out.emplace_back(0);
    // Full blocks of the widest width, then of each narrower one over what
    // is left, the last elements one at a time.
    int64_t start = 0;
    for (int64_t width : widths) {
      const int64_t blocks = (extent - start) / width;
      if (blocks == 0) continue;
      for_box({{0, blocks}}, [&](std::vector<Index> j) {
        out[rank - 1] = j[0] * width + start;
        block(out, width);
      });
      start += blocks * width;
    }
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

} // namespace plastic::loopgen::detail
