// What every `plastic analyze` subcommand starts from: the model's
// functions and layout, its parameters as f64 (read from a run folder or
// initialised), and, with --data, the prepared training data whose
// trajectories give the analysed states.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/abi/table.h"
#include "compiler/analysis/fixed_points.h"
#include "compiler/driver/commands.h"
#include "compiler/model/model_functions.h"
#include "runtime/app/model_data.h"

namespace plastic::driver {

struct AnalyzeSetup {
  std::optional<model::ModelFunctions> fns;
  abi::ModelLayout layout;
  /// The model's table without kernels: what parameter files and data
  /// preparation read (names, shapes, input slots, the fingerprint).
  abi::ModelTable table;
  std::vector<double> theta; ///< the parameters, as f64
  std::optional<rt::ModelData> data;

  const plastic_model& model() const { return table.model; }
  /// The training split of --data; null without data.
  const rt::PreparedData* train() const { return data && data->train ? &*data->train : nullptr; }
  /// "at initialisation" or "parameters of RUN".
  std::string parameters_origin(const AnalyzeRequest& r) const;
};

/// Loads the model, its parameters and the data of `r`; null with the exit
/// code in `code` (the message printed) on failure. Held by pointer: the
/// table points into itself and the layout.
std::unique_ptr<AnalyzeSetup> prepare_analysis(const AnalyzeRequest& r, const CommonOptions& common,
                                               int& code);

/// The fixed-point finder's options from the command line (fixed-points
/// and flow); starts along the trajectories of `s`'s data when it has some.
analysis::FixedPointOptions fixed_point_options(const AnalyzeRequest& r, const AnalyzeSetup& s);
/// Where the finder's starts come from, for the report's header.
std::string starts_description(const AnalyzeRequest& r, const AnalyzeSetup& s);

/// The stability report's progress callback (analysis::StabilityOptions):
/// a bar of states on stderr, and a stop when SIGINT or SIGTERM arrived
/// (the caller keeps an rt::InterruptGuard alive meanwhile).
std::function<bool(int64_t done, int64_t planned)> stability_progress();

/// Whether some parameter of `m` uses the stability-informed initialiser.
bool uses_stability_informed(const plastic_model& m);

} // namespace plastic::driver
