// Derivative rules of the general contraction.
//
// A contraction is multilinear. The cotangent of operand k is the
// contraction of the output cotangent with all other operands onto k's
// labels — for W k with cotangent c that is c ⊗ k, for an outer product
// v ⊗ k it is c k — and labels that only k had (summed away inside k alone)
// are restored by a broadcast. The JVP is the sum over operands of the
// contraction with that operand replaced by its tangent.
#include <algorithm>

#include "compiler/autodiff/rule_util.h"
#include "compiler/autodiff/rules.h"
#include "compiler/ir/einsum.h"
#include "compiler/ir/ops.h"

namespace plastic::ad {
namespace {

using namespace ir;

bool has(const std::vector<int>& v, int l) {
  return std::find(v.begin(), v.end(), l) != v.end();
}

std::vector<const Node*> contract_vjp(const Node* n, const Node* ct, std::span<const bool> need) {
  EinsumSpec spec = EinsumSpec::parse(n->attrs().str);
  std::vector<const Node*> out(n->num_operands(), nullptr);
  for (size_t k = 0; k < n->num_operands(); ++k) {
    if (!need[k]) continue;
    EinsumSpec s;
    std::vector<const Node*> ops;
    s.inputs.push_back(spec.output);
    ops.push_back(ct);
    std::vector<int> available = spec.output;
    for (size_t m = 0; m < n->num_operands(); ++m) {
      if (m == k) continue;
      s.inputs.push_back(spec.inputs[m]);
      ops.push_back(n->operand(m));
      available.insert(available.end(), spec.inputs[m].begin(), spec.inputs[m].end());
    }
    std::vector<int64_t> axes; // axes of operand k the contraction can produce
    for (size_t a = 0; a < spec.inputs[k].size(); ++a) {
      int l = spec.inputs[k][a];
      if (!has(available, l)) continue;
      s.output.push_back(l);
      axes.push_back(static_cast<int64_t>(a));
    }
    const Node* g = contract(s, ops);
    out[k] = broadcast(g, n->operand(k)->shape(), axes);
  }
  return out;
}

const Node* contract_jvp(const Node* n, std::span<const Node* const> t) {
  const Node* sum = nullptr;
  std::vector<const Node*> ops(n->operands().begin(), n->operands().end());
  for (size_t k = 0; k < t.size(); ++k) {
    if (!t[k]) continue;
    std::vector<const Node*> with = ops;
    with[k] = t[k];
    sum = detail::add_or(sum, contract(n->attrs().str, with));
  }
  return sum;
}

} // namespace

void register_contract_rules(RuleTable& t) {
  t[static_cast<size_t>(Op::Contract)] = {contract_vjp, contract_jvp};
}

} // namespace plastic::ad
