// Reverse mode (see reverse.h).
#include "compiler/autodiff/reverse.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "compiler/autodiff/rule_util.h"
#include "compiler/autodiff/rules.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"

namespace plastic::ad {

std::vector<const Node*> vjp(std::span<const Node* const> outputs,
                             std::span<const Node* const> cotangents,
                             std::span<const Node* const> wrt) {
  PLASTIC_CHECK(outputs.size() == cotangents.size(), "vjp: {} outputs but {} cotangents",
                outputs.size(), cotangents.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    if (cotangents[i] && (cotangents[i]->shape() != outputs[i]->shape() ||
                          cotangents[i]->dtype() != outputs[i]->dtype()))
      throw ir::IRError(fmt::format("vjp: cotangent {} does not match output {}",
                                    ir::type_str(cotangents[i]->dtype(), cotangents[i]->shape()),
                                    ir::type_str(outputs[i]->dtype(), outputs[i]->shape())));
  std::unordered_set<const Node*> wrt_set(wrt.begin(), wrt.end());
  PLASTIC_CHECK(wrt_set.size() == wrt.size(), "vjp: repeated wrt node");

  std::vector<const Node*> order = ir::topo_order(outputs);
  std::unordered_set<const Node*> depends; // nodes with a path from some wrt node
  for (const Node* n : order) {
    bool d = wrt_set.count(n) > 0;
    for (const Node* o : n->operands())
      d = d || depends.count(o);
    if (d) depends.insert(n);
  }

  std::unordered_map<const Node*, const Node*> adj;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (cotangents[i] && depends.count(outputs[i]))
      adj[outputs[i]] = detail::add_or(adj[outputs[i]], cotangents[i]);

  std::vector<bool> need;
  for (size_t i = order.size(); i-- > 0;) {
    const Node* n = order[i];
    auto it = adj.find(n);
    if (it == adj.end() || !it->second || n->num_operands() == 0) continue;
    need.assign(n->num_operands(), false);
    bool any = false;
    for (size_t k = 0; k < n->num_operands(); ++k)
      any |= (need[k] = depends.count(n->operand(k)) > 0 && is_float(n->operand(k)->dtype()));
    if (!any) continue;
    // std::vector<bool> is not contiguous; rules take a span of bools.
    std::unique_ptr<bool[]> flags(new bool[need.size()]);
    for (size_t k = 0; k < need.size(); ++k)
      flags[k] = need[k];
    // The derivative's nodes come from the same line of the model as n.
    ir::LocationScope at(n->context(), n->loc());
    std::vector<const Node*> cts =
        diff_rule(n->op()).vjp(n, it->second, std::span<const bool>(flags.get(), need.size()));
    PLASTIC_CHECK(cts.size() == n->num_operands(), "vjp rule of {} returned {} cotangents",
                  ir::op_name(n->op()), cts.size());
    for (size_t k = 0; k < cts.size(); ++k) {
      if (!need[k] || !cts[k]) continue;
      const Node* o = n->operand(k);
      PLASTIC_CHECK(cts[k]->shape() == o->shape(),
                    "vjp rule of {} gave a cotangent of shape {} for an operand of shape {}",
                    ir::op_name(n->op()), ir::shape_str(cts[k]->shape()),
                    ir::shape_str(o->shape()));
      const Node*& slot = adj[o];
      slot = detail::add_or(slot, cts[k]);
    }
  }
  std::vector<const Node*> out;
  for (const Node* w : wrt) {
    auto it = adj.find(w);
    out.push_back(it == adj.end() ? nullptr : it->second);
  }
  return out;
}

std::vector<const Node*> vjp_dense(std::span<const Node* const> outputs,
                                   std::span<const Node* const> cotangents,
                                   std::span<const Node* const> wrt) {
  std::vector<const Node*> out = vjp(outputs, cotangents, wrt);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = detail::or_zeros(out[i], wrt[i]);
  return out;
}

} // namespace plastic::ad
