// Forward mode (see forward.h).
#include "compiler/autodiff/forward.h"

#include <unordered_map>

#include <fmt/format.h>

#include "compiler/autodiff/rule_util.h"
#include "compiler/autodiff/rules.h"
#include "compiler/ir/error.h"
#include "compiler/ir/traversal.h"

namespace plastic::ad {

std::vector<const Node*> jvp(std::span<const Node* const> outputs, std::span<const Node* const> wrt,
                             std::span<const Node* const> tangents) {
  PLASTIC_CHECK(wrt.size() == tangents.size(), "jvp: {} wrt nodes but {} tangents", wrt.size(),
                tangents.size());
  std::unordered_map<const Node*, const Node*> tan;
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (!tangents[i]) continue;
    if (tangents[i]->shape() != wrt[i]->shape() || tangents[i]->dtype() != wrt[i]->dtype())
      throw ir::IRError(fmt::format("jvp: tangent {} does not match {}",
                                    ir::type_str(tangents[i]->dtype(), tangents[i]->shape()),
                                    ir::type_str(wrt[i]->dtype(), wrt[i]->shape())));
    PLASTIC_CHECK(!tan.count(wrt[i]), "jvp: repeated wrt node");
    tan[wrt[i]] = tangents[i];
  }
  auto stop = [&](const Node* n) { return tan.count(n) > 0; };
  std::vector<const Node*> ts;
  for (const Node* n : ir::topo_order(outputs, stop)) {
    if (tan.count(n)) continue;
    ts.clear();
    bool any = false;
    for (const Node* o : n->operands()) {
      auto it = tan.find(o);
      ts.push_back(it == tan.end() ? nullptr : it->second);
      any |= ts.back() != nullptr;
    }
    if (!any) continue;
    const Node* t = diff_rule(n->op()).jvp(n, ts);
    if (t) {
      PLASTIC_CHECK(t->shape() == n->shape(), "jvp rule of {} gave shape {} for {}",
                    ir::op_name(n->op()), ir::shape_str(t->shape()), ir::shape_str(n->shape()));
      tan[n] = t;
    }
  }
  std::vector<const Node*> out;
  for (const Node* o : outputs) {
    auto it = tan.find(o);
    out.push_back(it == tan.end() ? nullptr : it->second);
  }
  return out;
}

std::vector<const Node*> jvp_dense(std::span<const Node* const> outputs,
                                   std::span<const Node* const> wrt,
                                   std::span<const Node* const> tangents) {
  std::vector<const Node*> out = jvp(outputs, wrt, tangents);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = detail::or_zeros(out[i], outputs[i]);
  return out;
}

} // namespace plastic::ad
