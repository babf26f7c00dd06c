// `plastic check`: check models and summarise each (text or JSON).
#include "compiler/driver/commands.h"
#include "compiler/driver/memory_floor.h"
#include "compiler/driver/tune/search_space.h"
#include "dsl/frontend.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace plastic::driver {

using namespace plastic::dsl;

namespace {

std::string input_text(const InputInfo& in) {
  switch (in.kind) {
  case InputKind::Path:
    if (in.interp == Interpolation::LogSig)
      return fmt::format("{}: path[{}] logsig(depth {}, step {}) -> dx[{}]", in.name, in.shape[0],
                         in.logsig_depth, in.logsig_step, in.drive_size);
    return fmt::format("{}: path[{}] {}", in.name, in.shape[0], to_string(in.interp));
  case InputKind::Static:
    return fmt::format("{}: static{}", in.name, format_shape(in.shape));
  case InputKind::Label:
    return fmt::format("{}: label[{}]", in.name, in.classes);
  case InputKind::Target:
    return fmt::format("{}: target{}{}", in.name, format_shape(in.shape),
                       in.per_observation ? " per observation" : "");
  }
  return in.name;
}

std::string solver_text(const SolverInfo& s) {
  if (!s.adaptive) return fmt::format("{} step {}", s.method, s.step);
  return fmt::format("{} rtol {} atol {} max_steps {}", s.method, s.rtol, s.atol, s.max_steps);
}

std::string gradient_text(const GradientInfo& g) {
  switch (g.method) {
  case GradientMethod::Direct:
    return "direct (backpropagation through the solver)";
  case GradientMethod::Checkpoint:
    return fmt::format("checkpoint every {} steps", g.checkpoint_every);
  case GradientMethod::Adjoint:
    return fmt::format("adjoint rtol {} atol {}", g.rtol, g.atol);
  case GradientMethod::Auto:
    return g.budget_bytes > 0 ? fmt::format("auto: chosen at train time within {}",
                                            rt::format_bytes(g.budget_bytes))
                              : "auto: chosen at train time within half the available memory";
  }
  return "?";
}

nlohmann::json summary_json(const CheckedModel& m, const std::string& file) {
  nlohmann::json j;
  j["file"] = file;
  j["model"] = m.name;
  j["parameter_count"] = m.param_count();
  j["state_size"] = m.state_size();
  for (const DimValue& d : m.dims) {
    j["dims"][d.name] = d.value;
    if (d.tune) j["tune"][d.name] = describe_range(*d.tune);
  }
  for (const ParamInfo& p : m.params)
    j["parameters"].push_back({{"name", p.name},
                               {"shape", p.shape},
                               {"init", to_string(p.init.kind)},
                               {"offset", p.offset}});
  for (const StateInfo& s : m.states)
    j["states"].push_back({{"name", s.name},
                           {"shape", s.shape},
                           {"offset", s.offset},
                           {"jumps", !s.jump_value.empty()}});
  for (const InputInfo& in : m.inputs) {
    nlohmann::json i = {{"name", in.name}, {"kind", to_string(in.kind)}, {"shape", in.shape}};
    if (in.kind == InputKind::Path)
      i["interpolation"] = to_string(in.interp), i["drive_size"] = in.drive_size;
    if (in.kind == InputKind::Label) i["classes"] = in.classes;
    if (in.interp == Interpolation::LogSig)
      i["depth"] = in.logsig_depth, i["step"] = in.logsig_step;
    if (in.per_observation) i["per_observation"] = true;
    j["inputs"].push_back(i);
  }
  for (const OutputInfo& o : m.outputs)
    j["outputs"].push_back(
        {{"name", o.name}, {"shape", o.shape}, {"per_observation", o.per_observation}});
  j["solver"] = {{"method", m.solver.method}, {"adaptive", m.solver.adaptive},
                 {"step", m.solver.step},     {"rtol", m.solver.rtol},
                 {"atol", m.solver.atol},     {"max_steps", m.solver.max_steps}};
  j["gradient"] = {{"method", to_string(m.gradient.method)}};
  if (m.gradient.method == GradientMethod::Checkpoint)
    j["gradient"]["every"] = m.gradient.checkpoint_every;
  if (m.gradient.method == GradientMethod::Adjoint)
    j["gradient"]["rtol"] = m.gradient.rtol, j["gradient"]["atol"] = m.gradient.atol;
  if (m.gradient.method == GradientMethod::Auto && m.gradient.budget_bytes > 0)
    j["gradient"]["budget_bytes"] = m.gradient.budget_bytes;
  return j;
}

void print_summary(const CheckedModel& m, const std::string& file) {
  std::cout << fmt::format("{}  ({})\n", m.name, file);
  std::cout << fmt::format("  parameters  {} in {} tensors\n", m.param_count(), m.params.size());
  std::vector<std::string> states, inputs, outputs;
  for (const StateInfo& s : m.states)
    states.push_back(s.name + " " + format_shape(s.shape) +
                     (s.jump_value.empty() ? "" : " (jumps)"));
  for (const InputInfo& in : m.inputs)
    inputs.push_back(input_text(in));
  for (const OutputInfo& o : m.outputs)
    outputs.push_back(o.name + " " + format_shape(o.shape) +
                      (o.per_observation ? " per observation" : ""));
  std::cout << fmt::format("  state       {}: {}\n", m.state_size(), fmt::join(states, ", "));
  std::cout << fmt::format("  inputs      {}\n", fmt::join(inputs, "; "));
  std::cout << fmt::format("  outputs     {}\n", fmt::join(outputs, "; "));
  std::vector<std::string> tunable;
  for (const DimValue& d : m.dims)
    if (d.tune) tunable.push_back(d.name + " " + describe_range(*d.tune));
  if (!tunable.empty())
    std::cout << fmt::format("  tunable     {} (plastic tune)\n", fmt::join(tunable, ", "));
  std::cout << fmt::format("  solver      {}\n", solver_text(m.solver));
  std::cout << fmt::format("  gradient    {}\n", gradient_text(m.gradient));
  std::cout << fmt::format("  memory      a training step: {}\n",
                           memory_summary(m, memory_setting({})));
}

} // namespace

int run_check(const std::vector<std::string>& paths, bool json, const CommonOptions& common) {
  std::vector<std::string> files = expand_model_paths(paths);
  if (files.empty()) {
    std::cerr << "plastic check: no model files (*.ode) found\n";
    return kUsageError;
  }
  int worst = kOk;
  int failed = 0;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& file : files) {
    DiagnosticEngine diag;
    diag.set_max_errors(common.error_limit);
    CheckOptions options{common.overrides, {}, {}};
    CheckResult r = check_file(file, options, diag);
    // A model whose smallest training step cannot fit is an error of the model.
    if (r.model &&
        !check_memory_floor(*r.model, memory_setting({}), common.memory_limit, diag, file, options))
      r.model.reset();
    diag.render(std::cerr, common.color);
    if (!r.model) {
      ++failed;
      worst = std::max(worst, r.usage_error ? int(kUsageError) : int(kInputError));
      continue;
    }
    if (json)
      all.push_back(summary_json(*r.model, file));
    else
      print_summary(*r.model, file);
  }
  if (json) std::cout << all.dump(2) << "\n";
  if (files.size() > 1 && !json)
    std::cout << fmt::format("{} of {} models checked clean\n", files.size() - failed,
                             files.size());
  return worst;
}

} // namespace plastic::driver
