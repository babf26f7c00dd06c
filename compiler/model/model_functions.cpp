// Lowering a model file and deriving its functions (see model_functions.h).
#include "compiler/model/model_functions.h"

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/ode.h"
#include "compiler/passes/pipeline.h"
#include "runtime/solvers/tableau.h"
#include "runtime/support/internal_error.h"

#include <fmt/format.h>

#include <iostream>

namespace plastic::model {

FnKind vjp_of(FnKind primal) {
  switch (primal) {
  case FnKind::Field:
    return FnKind::FieldVjp;
  case FnKind::Init:
    return FnKind::InitVjp;
  case FnKind::FinalOutputs:
    return FnKind::FinalOutputsVjp;
  case FnKind::ObservationOutputs:
    return FnKind::ObservationOutputsVjp;
  case FnKind::Jump:
    return FnKind::JumpVjp;
  case FnKind::Loss:
    return FnKind::LossVjp;
  case FnKind::Step:
    return FnKind::StepVjp;
  default:
    break;
  }
  throw plastic::InternalError(
      fmt::format("the function '{}' has no VJP", to_string(FnRole(primal))));
}

std::string to_string(const FnRole& role) {
  // The step kinds carry their method in the name: "step.rk4.vjp".
  auto step = [&](std::string_view suffix) {
    return "step." + std::string(role.method ? role.method->name : "?") + std::string(suffix);
  };
  switch (role.kind) {
  case FnKind::Field:
    return "field";
  case FnKind::Init:
    return "init";
  case FnKind::FinalOutputs:
    return "outputs";
  case FnKind::ObservationOutputs:
    return "observation_outputs";
  case FnKind::Jump:
    return "jump";
  case FnKind::Loss:
    return "loss";
  case FnKind::FieldVjp:
    return "field.vjp";
  case FnKind::AdjointSystem:
    return "adjoint";
  case FnKind::InitVjp:
    return "init.vjp";
  case FnKind::FinalOutputsVjp:
    return "outputs.vjp";
  case FnKind::ObservationOutputsVjp:
    return "observation_outputs.vjp";
  case FnKind::JumpVjp:
    return "jump.vjp";
  case FnKind::LossVjp:
    return "loss.vjp";
  case FnKind::Step:
    return step("");
  case FnKind::StepVjp:
    return step(".vjp");
  case FnKind::StepStaticVjp:
    return step(".vjp.static");
  case FnKind::AdjointStep:
    return step(".adjoint");
  case FnKind::StepFsal:
    return step(".fsal");
  }
  throw plastic::InternalError("unknown function kind");
}

const ir::Function* ModelFunctions::find(const FnRole& role) const {
  for (const auto* group : {&primal, &derived})
    for (const NamedFunction& nf : *group)
      if (nf.role == role) return &nf.fn;
  for (const ModelStep& s : steps) {
    if (s.step.role == role) return &s.step.fn;
    if (s.vjp.role == role) return &s.vjp.fn;
    if (s.static_vjp && s.static_vjp->role == role) return &s.static_vjp->fn;
    if (s.adjoint && s.adjoint->role == role) return &s.adjoint->fn;
    if (s.fsal && s.fsal->role == role) return &s.fsal->fn;
  }
  return nullptr;
}

const ModelStep* ModelFunctions::step(const rt::ButcherTableau* method) const {
  for (const ModelStep& s : steps)
    if (method && s.method() == method) return &s;
  return nullptr;
}

std::vector<const NamedFunction*> ModelFunctions::step_functions() const {
  std::vector<const NamedFunction*> out;
  for (const ModelStep& s : steps) {
    out.push_back(&s.step);
    out.push_back(&s.vjp);
    if (s.adjoint) out.push_back(&*s.adjoint);
    if (s.fsal) out.push_back(&*s.fsal);
  }
  return out;
}

std::vector<const NamedFunction*> ModelFunctions::functions() const {
  std::vector<const NamedFunction*> out;
  for (const auto* group : {&primal, &derived})
    for (const NamedFunction& nf : *group)
      out.push_back(&nf);
  for (const NamedFunction* nf : step_functions())
    out.push_back(nf);
  return out;
}

std::vector<std::pair<const ir::Function*, const ir::Function*>> ModelFunctions::vjp_pairs() const {
  std::vector<std::pair<const ir::Function*, const ir::Function*>> out;
  for (const NamedFunction& p : primal) {
    const ir::Function* vjp = find(vjp_of(p.role.kind));
    if (!vjp) throw plastic::InternalError(fmt::format("the {} has no VJP", to_string(p.role)));
    out.emplace_back(&p.fn, vjp);
  }
  for (const ModelStep& s : steps)
    out.emplace_back(&s.step.fn, &s.vjp.fn);
  return out;
}

size_t node_count(const ir::Function& f) {
  std::vector<const ir::Node*> roots;
  for (const ir::Output& o : f.outputs())
    roots.push_back(o.node);
  return ir::topo_order(roots).size();
}

std::optional<ModelFunctions>
build_model_functions(const std::string& file, const BuildOptions& options, BuildStatus& status) {
  dsl::DiagnosticEngine diag;
  diag.set_max_errors(options.error_limit);
  dsl::CheckResult r =
      dsl::check_file(file, {options.overrides, options.data_quantities, options.data_name}, diag);
  diag.render(std::cerr, options.color);
  return build_checked(std::move(r), options, status);
}

std::optional<ModelFunctions> build_model_functions_from_source(const std::string& name,
                                                                const std::string& text,
                                                                const BuildOptions& options,
                                                                BuildStatus& status) {
  dsl::DiagnosticEngine diag;
  dsl::CheckResult r = dsl::check_source(
      name, text, {options.overrides, options.data_quantities, options.data_name}, diag);
  diag.render(std::cerr, options.color);
  return build_checked(std::move(r), options, status);
}

std::optional<ModelFunctions> build_checked(dsl::CheckResult r, const BuildOptions& options,
                                            BuildStatus& status) {
  if (!r.model) {
    status = r.usage_error ? BuildStatus::UsageError : BuildStatus::InputError;
    return std::nullopt;
  }
  ModelFunctions out;
  out.model = std::move(r.model);
  out.ctx = std::make_unique<ir::Context>();
  irgen::ModelIR lowered = irgen::model_to_ir(*out.model, *out.ctx);

  passes::PassPipeline pipeline = passes::PassPipeline::standard();
  passes::PipelineOptions popts;
  popts.after_pass = options.after_pass;
  auto optimise = [&](const ir::Function& f) { return pipeline.run(f, popts); };

  out.primal.push_back({FnKind::Field, optimise(lowered.field)});
  out.primal.push_back({FnKind::Init, optimise(lowered.init)});
  if (lowered.final_outputs)
    out.primal.push_back({FnKind::FinalOutputs, optimise(*lowered.final_outputs)});
  if (lowered.observation_outputs)
    out.primal.push_back({FnKind::ObservationOutputs, optimise(*lowered.observation_outputs)});
  if (lowered.jump) out.primal.push_back({FnKind::Jump, optimise(*lowered.jump)});
  out.primal.push_back({FnKind::Loss, optimise(lowered.loss)});

  const ir::Function& field = out.primal[0].fn;
  out.derived.push_back({FnKind::FieldVjp, optimise(ad::field_vjp(field))});
  out.derived.push_back({FnKind::AdjointSystem, optimise(ad::adjoint_system(field))});
  for (const NamedFunction& p : out.primal)
    if (p.role.kind != FnKind::Field)
      out.derived.push_back({vjp_of(p.role.kind), optimise(ad::vjp_function(p.fn))});

  // The fused step of the model's solver, and dopri5's (the adaptive
  // reference) when the model uses another method.
  ad::RkStepOptions sopts;
  for (const dsl::InputInfo& in : out.model->inputs)
    if (in.kind == dsl::InputKind::Static)
      for (const ir::Node* leaf : field.inputs())
        if (leaf->name() == in.name) sopts.static_inputs.push_back(in.name);
  std::vector<std::string> methods = {out.model->solver.method};
  if (methods[0] != "dopri5") methods.emplace_back("dopri5");
  for (const std::string& method : methods) {
    const rt::ButcherTableau* tableau = rt::find_tableau(method);
    if (!tableau) {
      std::cerr << "plastic: note: no Butcher tableau for '" << method
                << "' yet; its fused step is skipped\n";
      continue;
    }
    ad::RkStep step = ad::build_rk_step(field, *tableau, sopts);
    ir::Function step_vjp = ad::build_step_vjp(step);
    NamedFunction fused{{FnKind::Step, tableau}, optimise(step.fn)};
    NamedFunction vjp{{FnKind::StepVjp, tableau}, optimise(step_vjp)};
    std::optional<NamedFunction> static_vjp;
    if (!sopts.static_inputs.empty()) {
      ad::VjpSpec spec;
      spec.wrt = sopts.static_inputs;
      spec.seeds = step.states;
      spec.name = step.fn.name() + ".vjp.static";
      static_vjp = NamedFunction{{FnKind::StepStaticVjp, tableau},
                                 optimise(ad::vjp_function(step.fn, spec))};
    }
    // The adjoint's backward solve steps with the model's own method; the
    // dopri5 reference gets none (no kernel is built from it).
    std::optional<NamedFunction> adjoint;
    if (method == methods[0])
      adjoint = NamedFunction{{FnKind::AdjointStep, tableau},
                              optimise(ad::build_adjoint_step(field, *tableau, sopts).fn)};
    std::optional<NamedFunction> fsal;
    if (tableau->fsal && tableau->adaptive()) {
      ad::RkStepOptions fopts = sopts;
      fopts.fsal = true;
      fopts.name = step.fn.name() + ".fsal";
      fsal = NamedFunction{{FnKind::StepFsal, tableau},
                           optimise(ad::build_rk_step(field, *tableau, fopts).fn)};
    }
    out.steps.push_back({std::move(fused), std::move(vjp), std::move(static_vjp),
                         std::move(adjoint), std::move(fsal), std::move(step)});
  }

  status = BuildStatus::Ok;
  return out;
}

} // namespace plastic::model
