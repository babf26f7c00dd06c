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

namespace {

// What one fused step integrates: leaves advanced by their rates (the ODE's
// states), outputs that are only summed along the step (quadratures: q' = Q,
// never fed back, e.g. the adjoint's parameter cotangent), and the leaves
// the stages read unchanged or per node.
struct Integrand {
  std::string name;                    ///< of the function integrated (errors, default name)
  const Node* time = nullptr;          ///< its time leaf, or null
  std::vector<const Node*> states;     ///< leaves z_i
  std::vector<const Node*> rates;      ///< dz_i/dt, in the order of `states`
  std::vector<ir::Output> quadratures; ///< Q_j, integrated as h Σ_i b_i Q_j(stage i)
  std::vector<const Node*> params;     ///< θ: read unchanged by every stage
  std::vector<const Node*> others;     ///< Arg leaves: read unchanged
  std::vector<const Node*> controls;   ///< Input leaves: per node, unless static
};

void check_explicit(const rt::ButcherTableau& tab) {
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
}

// h · Σ_i w_i k_i, or null if every weight is zero.
const Node* step_sum(const std::vector<double>& w, const std::vector<const Node*>& ks,
                     const Node* h) {
  const Node* sum = weighted_sum(w, ks);
  return sum ? detail::times_scalar(sum, h) : nullptr;
}

RkStep fuse_stages(const Integrand& f, ir::Context& ctx, const rt::ButcherTableau& tab,
                   const RkStepOptions& options) {
  check_explicit(tab);
  const int s = tab.stages;
  // Everything but the function itself; assembled into an RkStep at the end.
  struct {
    std::vector<double> nodes;
    std::vector<int> stage_node;
    std::vector<std::string> states, controls, params, quadratures;
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

  const Node* t = f.time ? f.time : ctx.time("t");
  if (!t->shape().empty()) throw ir::IRError("the time input of a field must be a scalar");
  const Node* h = ctx.leaf(Op::Arg, std::string(kStepSizeName), {}, 0, t->dtype());

  std::vector<const Node*> inputs{t, h};
  inputs.insert(inputs.end(), f.states.begin(), f.states.end());
  inputs.insert(inputs.end(), f.params.begin(), f.params.end());
  inputs.insert(inputs.end(), f.others.begin(), f.others.end());
  std::vector<const Node*> varying;
  for (const Node* u : f.controls) {
    bool is_static = std::find(options.static_inputs.begin(), options.static_inputs.end(),
                               u->name()) != options.static_inputs.end();
    if (is_static)
      inputs.push_back(u);
    else
      varying.push_back(u);
  }
  for (const std::string& name : options.static_inputs)
    if (std::none_of(f.controls.begin(), f.controls.end(),
                     [&](const Node* u) { return u->name() == name; }))
      throw ir::IRError(
          fmt::format("static input '{}' is not an input sample of field '{}'", name, f.name));
  // per_node[k][j]: control j at node k
  std::vector<std::vector<const Node*>> per_node(step.nodes.size());
  for (size_t k = 0; k < step.nodes.size(); ++k)
    for (const Node* u : varying) {
      std::string name = fmt::format("{}@{}", u->name(), k);
      per_node[k].push_back(ctx.leaf(Op::Input, name, u->shape(), u->slot(), u->dtype()));
      inputs.push_back(per_node[k].back());
      step.controls.push_back(name);
    }

  // Stage i evaluates the rates and the quadratures at once, so the terms
  // they share are built once.
  const size_t m = f.states.size();
  const bool fsal = options.fsal;
  if (fsal && (!tab.fsal || !tab.adaptive() || !f.quadratures.empty()))
    throw ir::IRError(fmt::format("an FSAL step of '{}' needs an FSAL embedded pair and no "
                                  "quadratures ('{}' is not one, or has them)",
                                  f.name, tab.name));
  std::vector<const Node*> roots = f.rates;
  for (const ir::Output& q : f.quadratures)
    roots.push_back(q.node);
  std::vector<std::vector<const Node*>> k_stage; // k_stage[i][root]
  for (int i = 0; i < s; ++i) {
    if (i == 0 && fsal) {
      // The first stage's rates are given: leaves, not a field evaluation.
      std::vector<const Node*> given;
      for (size_t st = 0; st < m; ++st) {
        const Node* z = f.states[st];
        given.push_back(ctx.leaf(Op::Arg, derived_name(Derived::FirstStage, z->name()), z->shape(),
                                 0, z->dtype()));
        inputs.push_back(given.back());
      }
      k_stage.push_back(std::move(given));
      continue;
    }
    std::unordered_map<const Node*, const Node*> sub;
    double ci = tab.c[static_cast<size_t>(i)];
    if (f.time) sub[f.time] = ci == 0 ? t : ir::add(t, ir::scale(h, ci));
    for (size_t st = 0; st < m; ++st) {
      std::vector<double> w;
      std::vector<const Node*> ks;
      for (int j = 0; j < i; ++j) {
        w.push_back(tab.A(i, j));
        ks.push_back(k_stage[static_cast<size_t>(j)][st]);
      }
      const Node* incr = step_sum(w, ks, h);
      const Node* z = f.states[st];
      sub[z] = incr ? ir::add(z, incr) : z;
    }
    const auto& controls = per_node[static_cast<size_t>(step.stage_node[static_cast<size_t>(i)])];
    for (size_t j = 0; j < varying.size(); ++j)
      sub[varying[j]] = controls[j];
    k_stage.push_back(ir::substitute(roots, sub));
  }
  auto stages_of = [&](size_t root) {
    std::vector<const Node*> ks;
    ks.reserve(static_cast<size_t>(s));
    for (int i = 0; i < s; ++i)
      ks.push_back(k_stage[static_cast<size_t>(i)][root]);
    return ks;
  };

  std::vector<ir::Output> outs;
  for (size_t st = 0; st < m; ++st) {
    const Node* z = f.states[st];
    const Node* incr = step_sum(tab.b, stages_of(st), h);
    outs.push_back({z->name(), incr ? ir::add(z, incr) : z});
    step.states.push_back(z->name());
  }
  for (size_t q = 0; q < f.quadratures.size(); ++q) {
    const ir::Output& Q = f.quadratures[q];
    const Node* incr = step_sum(tab.b, stages_of(m + q), h);
    outs.push_back({Q.name, incr ? incr : ir::zeros_like(Q.node)});
    step.quadratures.push_back(Q.name);
  }
  if (step.adaptive) {
    auto error_of = [&](const std::string& name, size_t root, const Node* like) {
      const Node* err = step_sum(tab.e, stages_of(root), h);
      outs.push_back(
          {derived_name(Derived::ErrorEstimate, name), err ? err : ir::zeros_like(like)});
    };
    for (size_t st = 0; st < m; ++st)
      error_of(f.states[st]->name(), st, f.states[st]);
    for (size_t q = 0; q < f.quadratures.size(); ++q)
      error_of(f.quadratures[q].name, m + q, f.quadratures[q].node);
  }
  if (fsal)
    for (size_t st = 0; st < m; ++st)
      outs.push_back({derived_name(Derived::LastStage, f.states[st]->name()),
                      k_stage[static_cast<size_t>(s - 1)][st]});
  for (const Node* p : f.params)
    step.params.push_back(p->name());
  std::string name =
      options.name.empty() ? fmt::format("{}.step.{}", f.name, tab.name) : options.name;
  return RkStep{Function(std::move(name), std::move(inputs), std::move(outs)),
                std::move(step.nodes),
                std::move(step.stage_node),
                std::move(step.states),
                std::move(step.controls),
                std::move(step.params),
                std::move(step.quadratures),
                step.adaptive};
}

} // namespace

RkStep build_rk_step(const Function& field, const rt::ButcherTableau& tab,
                     const RkStepOptions& options) {
  FieldSignature sig = field_signature(field);
  Integrand f{.name = field.name(),
              .time = sig.time,
              .states = sig.states,
              .rates = field.output_nodes(),
              .quadratures = {},
              .params = sig.params,
              .others = sig.others,
              .controls = sig.controls};
  return fuse_stages(f, field.context(), tab, options);
}

RkStep build_adjoint_step(const Function& field, const rt::ButcherTableau& tab,
                          const RkStepOptions& options) {
  FieldSignature sig = field_signature(field);
  Function adj = adjoint_system(field);
  // adjoint_system's inputs: [t,] the field's inputs, then "a.<state>" per
  // state; its outputs: f per state, "adj.<state>" per state, "adj.<param>".
  const size_t m = sig.states.size();
  Integrand f{
      .name = adj.name(), .states = sig.states, .params = sig.params, .controls = sig.controls};
  for (const Node* in : adj.inputs()) {
    if (in->op() == Op::Time) f.time = in;
    if (in->op() != Op::Arg) continue;
    // The adjoints "a.<state>" follow the states; other Args pass through.
    (derived_from(Derived::Adjoint, in->name()) ? f.states : f.others).push_back(in);
  }
  const std::vector<ir::Output>& outs = adj.outputs();
  if (f.states.size() != 2 * m || outs.size() != 2 * m + sig.params.size())
    throw ir::IRError(fmt::format("adjoint system of '{}' is malformed", field.name()));
  for (size_t i = 0; i < 2 * m; ++i)
    f.rates.push_back(outs[i].node);
  f.quadratures.assign(outs.begin() + static_cast<std::ptrdiff_t>(2 * m), outs.end());
  RkStepOptions named = options;
  if (named.name.empty()) named.name = fmt::format("{}.adjoint.step.{}", field.name(), tab.name);
  return fuse_stages(f, field.context(), tab, named);
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
