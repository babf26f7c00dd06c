// What the `plastic analyze` subcommands start from (see analyze_setup.h).
#include "compiler/driver/analyze_setup.h"

#include <filesystem>
#include <iostream>
#include <span>

#include <fmt/format.h>

#include "compiler/abi/kernels.h"
#include "compiler/driver/data_dims.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/elem_type.h"
#include "dsl/frontend.h"
#include "runtime/app/binding.h"
#include "runtime/app/parameters.h"
#include "runtime/init/init.h"
#include "runtime/io/progress.h"
#include "runtime/support/interrupt.h"

namespace plastic::driver {

namespace {

// The model's parameters as f64: read from a run (in the run's element
// type, which its fingerprint records) or initialised with `seed`.
template <class T>
bool parameters(const plastic_model& m, const AnalyzeRequest& r, std::vector<double>& theta,
                int& code) {
  std::vector<T> typed(static_cast<size_t>(m.n_params));
  if (!r.parameters.empty()) {
    if (Status<rt::AppError> s = rt::load_parameters<T>(m, r.parameters, typed); !s) {
      std::cerr << fmt::format("plastic: {}\n", s.error().message);
      code = s.error().exit_code;
      return false;
    }
  } else {
    auto init = rt::initialise_parameters<T>(m, std::span<T>(typed), r.seed);
    if (!init) {
      std::cerr << fmt::format("plastic: initialising {}: {}\n", m.name, init.error().describe());
      code = kInputError;
      return false;
    }
  }
  theta.assign(typed.begin(), typed.end());
  return true;
}

// The binding of the run folder --parameters names (none for a
// .safetensors file or a folder without run.json); false with the message
// printed when it cannot be read.
bool read_run_binding(const AnalyzeRequest& r, std::optional<rt::RunBinding>& binding, int& code) {
  std::error_code ec;
  if (r.parameters.empty() || !std::filesystem::is_directory(r.parameters, ec)) return true;
  auto read = rt::read_binding(r.parameters);
  if (!read) {
    std::cerr << fmt::format("plastic: {}\n", read.error().message);
    code = read.error().exit_code;
    return false;
  }
  binding = std::move(read.value());
  return true;
}

// The model compiled as the other doors compile it: a run's --set values
// (each given now replacing the run's), and the dims it takes from data
// (`dim d from data.channels`) from the run's binding, else from --data.
CommonOptions bound_options(const AnalyzeRequest& r, const std::optional<rt::RunBinding>& binding,
                            const CommonOptions& common) {
  CommonOptions bound = common;
  if (binding) bound.overrides = binding->sets_with(common.overrides);
  if (!dsl::declares_data_dims(r.file)) return bound;
  rt::RunOptions run;
  run.data = r.data;
  run.data_flags = r.data_flags;
  if (run.data.empty() && binding) run = binding->record.train.run;
  if (run.data.empty()) return bound;
  const std::string recorded = binding ? r.parameters : std::string();
  if (auto q = data_quantities_for(binding, recorded, run)) {
    bound.data_quantities = std::move(q->first);
    bound.data_name = std::move(q->second);
  }
  return bound;
}

} // namespace

std::string AnalyzeSetup::parameters_origin(const AnalyzeRequest& r) const {
  return r.parameters.empty() ? "at initialisation" : "parameters of " + r.parameters;
}

std::unique_ptr<AnalyzeSetup> prepare_analysis(const AnalyzeRequest& r, const CommonOptions& common,
                                               int& code) {
  auto s = std::make_unique<AnalyzeSetup>();
  std::optional<rt::RunBinding> binding;
  if (!read_run_binding(r, binding, code)) return nullptr;
  s->fns = load_model(r.file, bound_options(r, binding, common), code);
  if (!s->fns) return nullptr;
  s->layout = abi::compute_layout(*s->fns);
  const loops::ElemType type = loops::elem_type(r.dtype);
  abi::ModelKernels none;
  none.index.fill(-1);
  abi::fill_table(
      s->layout, none, type, /*lanes=*/1, [](abi::KernelId) -> void* { return nullptr; }, s->table);
  const plastic_model& m = s->table.model;
  if (!(type == loops::ElemType::F64 ? parameters<double>(m, r, s->theta, code)
                                     : parameters<float>(m, r, s->theta, code)))
    return nullptr;

  if (!r.data.empty()) {
    rt::RunOptions run;
    run.data = r.data;
    run.seed = r.seed;
    run.dtype = r.dtype;
    run.data_flags = r.data_flags;
    if (!r.parameters.empty())
      if (Status<rt::AppError> st =
              rt::recall_data_flags(r.parameters, rt::RecordedFlags::Reuse, run.data_flags);
          !st) {
        std::cerr << fmt::format("plastic: {}\n", st.error().message);
        code = st.error().exit_code;
        return nullptr;
      }
    auto opened = rt::open_model_data(m, run);
    if (!opened) {
      std::cerr << fmt::format("plastic: {}\n", opened.error().message);
      code = opened.error().exit_code;
      return nullptr;
    }
    s->data.emplace(std::move(opened).value());
  }
  return s;
}

analysis::FixedPointOptions fixed_point_options(const AnalyzeRequest& r, const AnalyzeSetup& s) {
  analysis::FixedPointOptions o;
  o.data = s.train();
  o.samples = r.samples;
  o.starts = r.starts;
  o.input = r.input;
  o.tolerance = r.tolerance;
  o.slow_tolerance = r.slow_tolerance;
  o.marginal = r.marginal;
  o.seed = r.seed;
  return o;
}

std::string starts_description(const AnalyzeRequest& r, const AnalyzeSetup& s) {
  if (const rt::PreparedData* data = s.train())
    return fmt::format("states along trajectories of {} training samples",
                       std::min<int64_t>(r.samples, static_cast<int64_t>(data->size())));
  return "the origin and states drawn from N(0, I)";
}

std::function<bool(int64_t, int64_t)> stability_progress() {
  // Shared: the callback is copied into the options; the bar ends its line
  // when the last copy goes.
  auto bar = std::make_shared<std::optional<rt::ProgressBar>>();
  return [bar](int64_t done, int64_t planned) {
    if (!*bar) {
      rt::ProgressOptions o;
      o.label = "stability";
      o.unit = "states";
      bar->emplace(planned, o);
    }
    (*bar)->update(done);
    if (done >= planned) (*bar)->finish();
    return !rt::InterruptGuard::requested();
  };
}

bool uses_stability_informed(const plastic_model& m) {
  for (int32_t i = 0; i < m.n_param_entries; ++i)
    if (m.params[i].init == PLASTIC_INIT_STABILITY_INFORMED) return true;
  return false;
}

} // namespace plastic::driver
