// `plastic analyze stability FILE`: the stability report of
// compiler/analysis/stability.h for a model at initialisation or with
// trained parameters, as a table, JSON, and a PNG of the region.
#include <cstdio>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "compiler/abi/kernels.h"
#include "compiler/abi/layout.h"
#include "compiler/abi/table.h"
#include "compiler/analysis/stability.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/load_model.h"
#include "runtime/app/model_data.h"
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

bool uses_stability_informed(const plastic_model& m) {
  for (int32_t i = 0; i < m.n_param_entries; ++i)
    if (m.params[i].init == PLASTIC_INIT_STABILITY_INFORMED) return true;
  return false;
}

} // namespace

int run_analyze_stability(const AnalyzeRequest& r, const CommonOptions& common) {
  int code = kOk;
  auto fns = load_model(r.file, common, code);
  if (!fns) return code;
  const abi::ModelLayout layout = abi::compute_layout(*fns);
  // The model's table without kernels: what parameter files and data
  // preparation read (names, shapes, input slots, the fingerprint).
  abi::ModelTable table;
  const loops::ElemType type = r.dtype == "f64" ? loops::ElemType::F64 : loops::ElemType::F32;
  abi::ModelKernels none;
  none.index.fill(-1);
  abi::fill_table(
      layout, none, type, /*lanes=*/1, [](abi::KernelId) -> void* { return nullptr; }, table);
  const plastic_model& m = table.model;

  std::vector<double> theta;
  if (!(type == loops::ElemType::F64 ? parameters<double>(m, r, theta, code)
                                     : parameters<float>(m, r, theta, code)))
    return code;

  analysis::StabilityOptions options;
  options.samples = r.samples;
  options.stability_informed = uses_stability_informed(m);
  std::optional<rt::ModelData> data;
  if (!r.data.empty()) {
    rt::RunOptions run;
    run.data = r.data;
    run.seed = r.seed;
    run.dtype = r.dtype;
    run.data_flags = r.data_flags;
    if (!r.parameters.empty())
      if (Status<rt::AppError> s =
              rt::recall_data_flags(r.parameters, rt::RecordedFlags::Reuse, run.data_flags);
          !s) {
        std::cerr << fmt::format("plastic: {}\n", s.error().message);
        return s.error().exit_code;
      }
    auto opened = rt::open_model_data(m, run);
    if (!opened) {
      std::cerr << fmt::format("plastic: {}\n", opened.error().message);
      return opened.error().exit_code;
    }
    data.emplace(std::move(opened).value());
    options.data = data->train ? &*data->train : nullptr;
  }

  analysis::StabilityReport report = analysis::stability_report(*fns, layout, theta, options);
  if (r.json) {
    std::cout << analysis::stability_json(report).dump(2) << "\n";
  } else {
    std::cout << fmt::format("model               {} ({}), {}\n", m.name, r.file,
                             r.parameters.empty() ? "at initialisation"
                                                  : "parameters of " + r.parameters);
    std::cout << fmt::format(
        "states from         {}\n",
        options.data
            ? fmt::format("trajectories of {} training samples",
                          std::min<int64_t>(r.samples, static_cast<int64_t>(options.data->size())))
            : std::string("the origin (z = 0, inputs 0)"));
    std::cout << analysis::format_stability(report);
  }
  if (!r.plot.empty()) {
    if (std::optional<std::string> failed = analysis::plot_stability(report, r.plot)) {
      std::cerr << fmt::format("plastic: {}\n", *failed);
      return kInputError;
    }
    std::cerr << fmt::format("plot      {}\n", r.plot);
  }
  return kOk;
}

} // namespace plastic::driver
