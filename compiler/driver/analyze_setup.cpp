// What the `plastic analyze` subcommands start from (see analyze_setup.h).
#include "compiler/driver/analyze_setup.h"

#include <iostream>
#include <span>

#include <fmt/format.h>

#include "compiler/abi/kernels.h"
#include "compiler/driver/load_model.h"
#include "compiler/loops/elem_type.h"
#include "runtime/app/parameters.h"
#include "runtime/init/init.h"

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

} // namespace

std::string AnalyzeSetup::parameters_origin(const AnalyzeRequest& r) const {
  return r.parameters.empty() ? "at initialisation" : "parameters of " + r.parameters;
}

std::unique_ptr<AnalyzeSetup> prepare_analysis(const AnalyzeRequest& r, const CommonOptions& common,
                                               int& code) {
  auto s = std::make_unique<AnalyzeSetup>();
  s->fns = load_model(r.file, common, code);
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

bool uses_stability_informed(const plastic_model& m) {
  for (int32_t i = 0; i < m.n_param_entries; ++i)
    if (m.params[i].init == PLASTIC_INIT_STABILITY_INFORMED) return true;
  return false;
}

} // namespace plastic::driver
