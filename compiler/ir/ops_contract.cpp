// Factories of the one general contraction and its familiar spellings
// (matmul, matvec, outer, dot, transpose).
//
// Canonical form: operands ordered by rank (highest first), then by
// canonical_before, labels renamed by
// first appearance; a transpose feeding a contraction is absorbed into the
// labels; a one-operand contraction of a contraction is merged; an identity
// relabelling returns its operand. So `transpose(transpose(x))`, `outer(a,b)`
// built either way round, and `matvec(W, k)` spelled as an einsum are each one
// node.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "compiler/ir/ops_internal.h"

namespace plastic::ir {
namespace {

bool is_permutation_contract(const Node* x) {
  if (x->op() != Op::Contract || x->num_operands() != 1) return false;
  EinsumSpec s = EinsumSpec::parse(x->attrs().str);
  return s.inputs[0].size() == s.output.size();
}

// Replaces operand `i` of a contraction by the operands of `inner` (whose
// output labels are renamed to the labels `spec.inputs[i]` gives them).
void absorb(EinsumSpec& spec, std::vector<const Node*>& ops, size_t i, const Node* inner) {
  EinsumSpec in = EinsumSpec::parse(inner->attrs().str);
  int fresh = std::max(spec.label_bound(), 0);
  std::vector<int> rename(static_cast<size_t>(in.label_bound()), -1);
  for (size_t j = 0; j < in.output.size(); ++j)
    rename[static_cast<size_t>(in.output[j])] = spec.inputs[i][j];
  for (int& r : rename)
    if (r < 0) r = fresh++;
  std::vector<std::vector<int>> new_inputs;
  std::vector<const Node*> new_ops;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (k != i) {
      new_inputs.push_back(spec.inputs[k]);
      new_ops.push_back(ops[k]);
      continue;
    }
    for (size_t m = 0; m < in.inputs.size(); ++m) {
      std::vector<int> ls;
      for (int l : in.inputs[m])
        ls.push_back(rename[static_cast<size_t>(l)]);
      new_inputs.push_back(ls);
      new_ops.push_back(inner->operand(m));
    }
  }
  spec.inputs = std::move(new_inputs);
  ops = std::move(new_ops);
}

} // namespace

const Node* contract(const EinsumSpec& spec_in, std::vector<const Node*> ops) {
  if (ops.empty()) throw IRError("contract of nothing");
  EinsumSpec spec = spec_in;
  // Check the request as written, so errors quote the user's spec.
  Attrs attrs{spec.str(), {}, {}};
  TypeResult t = detail::check(Op::Contract, ops, attrs);

  // Absorb transposes (pure relabellings) and, for a one-operand contraction
  // of a contraction, the inner contraction itself.
  for (size_t i = 0; i < ops.size(); ++i) {
    if (is_permutation_contract(ops[i]) || (ops.size() == 1 && ops[i]->op() == Op::Contract)) {
      absorb(spec, ops, i, ops[i]);
      i = static_cast<size_t>(-1); // restart: absorbed operands may absorb further
    }
  }

  if (ops.size() > 1) {
    std::vector<size_t> order(ops.size());
    std::iota(order.begin(), order.end(), 0);
    // Higher-rank operands first (W before k reads as a matvec), then the
    // canonical order of commutative operands.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (ops[a]->is_constant() == ops[b]->is_constant() && ops[a]->rank() != ops[b]->rank())
        return ops[a]->rank() > ops[b]->rank();
      return canonical_before(ops[a], ops[b]);
    });
    EinsumSpec sorted;
    std::vector<const Node*> sorted_ops;
    for (size_t k : order) {
      sorted.inputs.push_back(spec.inputs[k]);
      sorted_ops.push_back(ops[k]);
    }
    sorted.output = spec.output;
    spec = std::move(sorted);
    ops = std::move(sorted_ops);
  }
  spec = spec.canonical();
  if (spec.label_bound() > 52)
    throw IRError("contract: more than 52 distinct labels", ops[0]->context().current_location());
  if (ops.size() == 1 && spec.inputs[0] == spec.output) return ops[0];
  attrs.str = spec.str();
  t = detail::check(Op::Contract, ops, attrs);
  return detail::make(Op::Contract, std::move(t), std::move(ops), std::move(attrs));
}

const Node* contract(std::string_view spec, std::vector<const Node*> ops) {
  EinsumSpec s;
  try {
    s = EinsumSpec::parse(spec);
  } catch (const IRError& e) {
    const SourceLoc loc = ops.empty() ? SourceLoc{} : ops[0]->context().current_location();
    throw IRError(fmt::format("contract: {}", e.what()), loc);
  }
  return contract(s, std::move(ops));
}

namespace {

std::vector<int> iota_labels(int from, int count) {
  std::vector<int> v(static_cast<size_t>(count));
  std::iota(v.begin(), v.end(), from);
  return v;
}

IRError shape_error(const char* what, const Node* a, const Node* b) {
  return IRError(fmt::format("{}: shapes {} and {} do not fit", what, shape_str(a->shape()),
                             shape_str(b->shape())),
                 a->context().current_location());
}

} // namespace

const Node* matvec(const Node* a, const Node* x) {
  int r = a->rank();
  // x is batched like a ([..., k]) or one vector shared by the batch ([k]).
  if (r < 2 || (x->rank() != r - 1 && x->rank() != 1)) throw shape_error("matvec", a, x);
  // batch labels 0..r-3, then m = r-2, k = r-1
  EinsumSpec s;
  std::vector<int> batch = iota_labels(0, r - 2);
  s.inputs.push_back(batch);
  s.inputs[0].push_back(r - 2);
  s.inputs[0].push_back(r - 1);
  s.inputs.push_back(x->rank() == 1 ? std::vector<int>{} : batch);
  s.inputs[1].push_back(r - 1);
  s.output = batch;
  s.output.push_back(r - 2);
  return contract(s, {a, x});
}

const Node* matmul(const Node* a, const Node* b) {
  if (a->rank() >= 2 && b->rank() == 1) return matvec(a, b);
  if (a->rank() >= 2 && b->rank() == a->rank() - 1) {
    // [..., m, k] @ [..., k] is a batched matvec when the batch dims agree;
    // otherwise (rank 2 only) b is a matrix shared by the batch.
    const Shape &sa = a->shape(), &sb = b->shape();
    if (std::equal(sb.begin(), sb.end() - 1, sa.begin()) && sb.back() == sa.back())
      return matvec(a, b);
  }
  if (a->rank() == 1 && b->rank() == 1) return dot(a, b);
  if (a->rank() == 1) { // vecmat: x · B over B's first axis
    if (b->rank() != 2) throw shape_error("matmul", a, b);
    return contract("a,ab->b", {a, b});
  }
  int r = a->rank();
  // b is batched like a ([..., k, n]) or one matrix shared by the batch ([k, n]).
  if (b->rank() != r && b->rank() != 2) throw shape_error("matmul", a, b);
  std::vector<int> batch = iota_labels(0, r - 2);
  int m = r - 2, k = r - 1, n = r;
  EinsumSpec s;
  s.inputs = {batch, b->rank() == 2 ? std::vector<int>{} : batch};
  s.inputs[0].insert(s.inputs[0].end(), {m, k});
  s.inputs[1].insert(s.inputs[1].end(), {k, n});
  s.output = batch;
  s.output.insert(s.output.end(), {m, n});
  return contract(s, {a, b});
}

const Node* outer(const Node* a, const Node* b, int batch_dims) {
  if (batch_dims < 0 || batch_dims > a->rank() || batch_dims > b->rank())
    throw shape_error("outer", a, b);
  std::vector<int> batch = iota_labels(0, batch_dims);
  std::vector<int> ra = iota_labels(batch_dims, a->rank() - batch_dims);
  std::vector<int> rb = iota_labels(a->rank(), b->rank() - batch_dims);
  EinsumSpec s;
  s.inputs = {batch, batch};
  s.inputs[0].insert(s.inputs[0].end(), ra.begin(), ra.end());
  s.inputs[1].insert(s.inputs[1].end(), rb.begin(), rb.end());
  s.output = batch;
  s.output.insert(s.output.end(), ra.begin(), ra.end());
  s.output.insert(s.output.end(), rb.begin(), rb.end());
  return contract(s, {a, b});
}

const Node* dot(const Node* a, const Node* b) {
  if (a->shape() != b->shape()) throw shape_error("dot", a, b);
  EinsumSpec s;
  s.inputs = {iota_labels(0, a->rank()), iota_labels(0, a->rank())};
  return contract(s, {a, b});
}

const Node* transpose(const Node* x, const std::vector<int64_t>& perm) {
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i) || static_cast<int>(perm.size()) != x->rank())
      throw IRError(fmt::format("transpose: [{}] is not a permutation of the axes of {}",
                                fmt::join(perm, ","), shape_str(x->shape())),
                    x->context().current_location());
  EinsumSpec s;
  s.inputs = {iota_labels(0, x->rank())};
  for (int64_t p : perm)
    s.output.push_back(static_cast<int>(p));
  return contract(s, {x});
}

} // namespace plastic::ir
