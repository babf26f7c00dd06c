// Fused explicit Runge–Kutta steps and their VJPs (see ode.h).
//
// The stages are built by substituting into the field's DAG: stage i
// replaces t by t + c_i h, each state by z_n + h Σ_j a_ij k_j and each
// control by its copy at node c_i, and rebuilds through the factories, so
// terms with zero coefficients vanish and expressions that do not depend on
// the substituted leaves (functions of θ alone, e.g. sigmoid(β)) are shared
// by all stages through hash-consing.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/names.h"
#include "compiler/autodiff/ode.h"
#include "compiler/autodiff/rule_util.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"

namespace plastic::ad {
using ir::Function;
using ir::Node;
using ir::Op;

namespace {

// Σ_j w_j k_j over the non-zero weights, or null if all are zero.
const Node* weighted_sum(const std::vector<double>& w, const std::vector<const Node*>& ks) {
  const Node* sum = nullptr;
  for (size_t j = 0; j < ks.size(); ++j)
    if (w[j] != 0) sum = detail::add_or(sum, ir::scale(ks[j], w[j]));
  return sum;
}

} // namespace

RkStep build_rk_step(const Function& field, const rt::ButcherTableau& tab,
                     const RkStepOptions& options) {
  FieldSignature sig = field_signature(field);
  ir::Context& ctx = field.context();
  const int s = tab.stages;
  if (s <= 0 || tab.a.size() != static_cast<size_t>(s) * static_cast<size_t>(s) ||
      tab.b.size() != static_cast<size_t>(s) || tab.c.size() != static_cast<size_t>(s) ||
      (!tab.e.empty() && tab.e.size() != static_cast<size_t>(s)))
    throw ir::IRError(fmt::format("tableau '{}' is malformed", tab.name));
  for (int i = 0; i < s; ++i)
    for (int j = i; j < s; ++j)
      if (tab.A(i, j) != 0)
        throw ir::IRError(
            fmt::format("tableau '{}' is not explicit (a[{}][{}] != 0)", tab.name, i, j));

  // Everything but the function itself; assembled into an RkStep at the end.
  struct {
    std::vector<double> nodes;
    std::vector<int> stage_node;
    std::vector<std::string> states, controls, params;
    bool adaptive = false;
  } step;
  step.adaptive = tab.adaptive();
  for (int i = 0; i < s; ++i) {
    auto it = std::find(step.nodes.begin(), step.nodes.end(), tab.c[static_cast<size_t>(i)]);
    if (it == step.nodes.end()) {
      step.nodes.push_back(tab.c[static_cast<size_t>(i)]);
      it = step.nodes.end() - 1;
    }
    step.stage_node.push_back(static_cast<int>(it - step.nodes.begin()));
  }

  const Node* t = sig.time ? sig.time : ctx.time("t");
  if (!t->shape().empty()) throw ir::IRError("the time input of a field must be a scalar");
  const Node* h = ctx.leaf(Op::Arg, std::string(kStepSizeName), {}, 0, t->dtype());

  std::vector<const Node*> inputs{t, h};
  inputs.insert(inputs.end(), sig.states.begin(), sig.states.end());
  inputs.insert(inputs.end(), sig.params.begin(), sig.params.end());
  inputs.insert(inputs.end(), sig.others.begin(), sig.others.end());
  std::vector<const Node*> varying;
  for (const Node* u : sig.controls) {
    bool is_static = std::find(options.static_inputs.begin(), options.static_inputs.end(),
                               u->name()) != options.static_inputs.end();
    if (is_static)
      inputs.push_back(u);
    else
      varying.push_back(u);
  }
  for (const std::string& name : options.static_inputs)
    if (!field.input(name) || field.input(name)->op() != Op::Input)
      throw ir::IRError(fmt::format("static input '{}' is not an input sample of field '{}'", name,
                                    field.name()));
  // per_node[k][j]: control j at node k
  std::vector<std::vector<const Node*>> per_node(step.nodes.size());
  for (size_t k = 0; k < step.nodes.size(); ++k)
    for (const Node* u : varying) {
      std::string name = fmt::format("{}@{}", u->name(), k);
      per_node[k].push_back(ctx.leaf(Op::Input, name, u->shape(), u->slot(), u->dtype()));
      inputs.push_back(per_node[k].back());
      step.controls.push_back(name);
    }

  const size_t m = sig.states.size();
  std::vector<std::vector<const Node*>> k_stage; // k_stage[i][state]
  std::vector<const Node*> roots = field.output_nodes();
  for (int i = 0; i < s; ++i) {
    std::unordered_map<const Node*, const Node*> sub;
    double ci = tab.c[static_cast<size_t>(i)];
    if (sig.time) sub[sig.time] = ci == 0 ? t : ir::add(t, ir::scale(h, ci));
    for (size_t st = 0; st < m; ++st) {
      std::vector<double> w;
      std::vector<const Node*> ks;
      for (int j = 0; j < i; ++j) {
        w.push_back(tab.A(i, j));
        ks.push_back(k_stage[static_cast<size_t>(j)][st]);
      }
      const Node* incr = weighted_sum(w, ks);
      const Node* z = sig.states[st];
      sub[z] = incr ? ir::add(z, detail::times_scalar(incr, h)) : z;
    }
    const auto& controls = per_node[static_cast<size_t>(step.stage_node[static_cast<size_t>(i)])];
    for (size_t j = 0; j < varying.size(); ++j)
      sub[varying[j]] = controls[j];
    k_stage.push_back(ir::substitute(roots, sub));
  }

  std::vector<ir::Output> outs;
  for (size_t st = 0; st < m; ++st) {
    std::vector<const Node*> ks;
    ks.reserve(static_cast<size_t>(s));
    for (int i = 0; i < s; ++i)
      ks.push_back(k_stage[static_cast<size_t>(i)][st]);
    const Node* z = sig.states[st];
    const Node* incr = weighted_sum(tab.b, ks);
    outs.push_back({z->name(), incr ? ir::add(z, detail::times_scalar(incr, h)) : z});
    step.states.push_back(z->name());
  }
  if (step.adaptive) {
    for (size_t st = 0; st < m; ++st) {
      std::vector<const Node*> ks;
      ks.reserve(static_cast<size_t>(s));
      for (int i = 0; i < s; ++i)
        ks.push_back(k_stage[static_cast<size_t>(i)][st]);
      const Node* err = weighted_sum(tab.e, ks);
      const Node* z = sig.states[st];
      outs.push_back({derived_name(Derived::ErrorEstimate, z->name()),
                      err ? detail::times_scalar(err, h) : ir::zeros_like(z)});
    }
  }
  for (const Node* p : sig.params)
    step.params.push_back(p->name());
  std::string name =
      options.name.empty() ? fmt::format("{}.step.{}", field.name(), tab.name) : options.name;
  return RkStep{Function(std::move(name), std::move(inputs), std::move(outs)),
                std::move(step.nodes),
                std::move(step.stage_node),
                std::move(step.states),
                std::move(step.controls),
                std::move(step.params),
                step.adaptive};
}

Function build_step_vjp(const RkStep& step) {
  VjpSpec spec;
  spec.seeds = step.states;
  for (const auto* group : {&step.states, &step.params, &step.controls})
    spec.wrt.insert(spec.wrt.end(), group->begin(), group->end());
  spec.name = step.fn.name() + ".vjp";
  return vjp_function(step.fn, spec);
}

} // namespace plastic::ad
