// Lowering a model file and deriving its functions (see model_functions.h).
#include "compiler/model/model_functions.h"

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/ode.h"
#include "compiler/passes/pipeline.h"
#include "runtime/solvers/tableau.h"

#include <iostream>

namespace plastic::model {

size_t node_count(const ir::Function& f) {
  std::vector<const ir::Node*> roots;
  for (const ir::Output& o : f.outputs()) roots.push_back(o.node);
  return ir::topo_order(roots).size();
}

std::optional<ModelFunctions> build_model_functions(const std::string& file,
                                                    const BuildOptions& options,
                                                    BuildStatus& status) {
  dsl::DiagnosticEngine diag;
  dsl::CheckResult r = dsl::check_file(file, {options.overrides}, diag);
  diag.render(std::cerr, options.color);
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

  out.primal.push_back({"field", optimise(lowered.field)});
  out.primal.push_back({"init", optimise(lowered.init)});
  if (lowered.final_outputs) out.primal.push_back({"outputs", optimise(*lowered.final_outputs)});
  if (lowered.observation_outputs) out.primal.push_back({"observation_outputs", optimise(*lowered.observation_outputs)});
  if (lowered.jump) out.primal.push_back({"jump", optimise(*lowered.jump)});
  out.primal.push_back({"loss", optimise(lowered.loss)});

  const ir::Function& field = out.primal[0].fn;
  out.derived.push_back({"field.vjp", optimise(ad::field_vjp(field))});
  out.derived.push_back({"adjoint", optimise(ad::adjoint_system(field))});
  for (size_t i = 1; i < out.primal.size(); ++i)
    out.derived.push_back({out.primal[i].role + ".vjp", optimise(ad::vjp_function(out.primal[i].fn))});

  // The fused step of the model's solver, and dopri5's (the adaptive
  // reference) when the model uses another method.
  ad::RkStepOptions sopts;
  for (const dsl::InputInfo& in : out.model->inputs)
    if (in.kind == dsl::InputKind::Static)
      for (const ir::Node* leaf : field.inputs())
        if (leaf->name() == in.name) sopts.static_inputs.push_back(in.name);
  std::vector<std::string> methods = {out.model->solver.method};
  if (methods[0] != "dopri5") methods.push_back("dopri5");
  for (const std::string& method : methods) {
    const rt::ButcherTableau* tableau = rt::find_tableau(method);
    if (!tableau) {
      std::cerr << "plastic: note: no Butcher tableau for '" << method << "' yet; its fused step is skipped\n";
      continue;
    }
    ad::RkStep step = ad::build_rk_step(field, *tableau, sopts);
    ir::Function step_vjp = ad::build_step_vjp(step);
    out.steps.push_back({"step." + method, optimise(step.fn)});
    out.steps.push_back({"step." + method + ".vjp", optimise(step_vjp)});
    if (!sopts.static_inputs.empty()) {
      ad::VjpSpec spec;
      spec.wrt = sopts.static_inputs;
      spec.seeds = step.states;
      spec.name = step.fn.name() + ".vjp.static";
      out.step_static_vjps.push_back({"step." + method + ".vjp.static", optimise(ad::vjp_function(step.fn, spec))});
    }
    out.step_info.push_back(std::move(step));
  }

  // What gradcheck compares: each primal with its VJP, each step with its VJP.
  out.vjp_pairs.push_back({&out.primal[0].fn, &out.derived[0].fn});
  for (size_t i = 1; i < out.primal.size(); ++i) out.vjp_pairs.push_back({&out.primal[i].fn, &out.derived[i + 1].fn});
  for (size_t i = 0; i + 1 < out.steps.size(); i += 2) out.vjp_pairs.push_back({&out.steps[i].fn, &out.steps[i + 1].fn});
  status = BuildStatus::Ok;
  return out;
}

}  // namespace plastic::model
