// The stability report (paper 004): the Jacobian ∂f/∂z of the field at
// states of the model, its eigenvalues λ, and where h·λ falls against the
// stability region |R(z)| ≤ 1 of the model's solver (R: the stability
// polynomial of its tableau, the code the stability-informed initialiser
// uses, runtime/init/stability_polynomial.h).
//
// The Jacobian comes from the field's symbolic VJP, one row per unit
// cotangent, evaluated in the reference interpreter. States are taken
// along reference trajectories of real samples (reference_run.h), or
// without data at the origin z = 0 with zero inputs, where an MLP field
// linearises to W_n … W_1 (paper 004 Eq. 5: what the initialiser places).
//
// From the eigenvalues: the fraction of h·λ outside the region, the
// largest step that keeps every decaying mode (Re λ < 0) inside it, the
// modes that grow (Re λ > 0: no step makes them decay), a stiffness
// indicator (the ratio of the fastest to the slowest decay rate), and
// advice.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/abi/layout.h"
#include "compiler/model/model_functions.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/batch/stability_reporter.h"

namespace plastic::analysis {

/// One eigenvalue at one state.
struct StabilityPoint {
  int64_t sample = -1; ///< data set index; -1 at the origin
  double t = 0;
  std::complex<double> lambda;
  double amplification = 0; ///< |R(h λ)|
};

struct StabilityReport {
  std::string solver;
  double h = 0;
  int64_t states = 0;            ///< states the Jacobian was taken at
  int64_t skipped = 0;           ///< states left out: their Jacobian is not finite
  int64_t planned = 0;           ///< states the options asked for
  int64_t samples = 0;           ///< data samples followed (0: the origin)
  int64_t states_per_sample = 0; ///< after the row budget
  bool stopped = false;          ///< the progress callback stopped it before `planned`
  int64_t dimension = 0;         ///< the state's size (each Jacobian is dimension²)
  /// The largest group of states coupled both ways (block_eigenvalues.h):
  /// the eigenvalues are computed per group.
  int64_t largest_block = 0;
  std::vector<StabilityPoint> points; ///< every eigenvalue of every state
  int64_t outside = 0;                ///< points with |R(hλ)| > 1
  int64_t growing = 0;                ///< points with Re λ > neutral_tolerance
  /// Points with |Re λ| <= neutral_tolerance: neither growing nor decaying
  /// (an accumulating state, and the rounding noise an eigensolver leaves
  /// on an exact zero, ~1e-27 where the spectral radius is ~1).
  int64_t neutral = 0;
  /// kNeutralRelative times the spectral radius.
  double neutral_tolerance = 0;
  static constexpr double kNeutralRelative = 1e-6;
  double max_amplification = 0;
  double spectral_radius = 0;     ///< max |λ|
  double largest_stable_step = 0; ///< over the decaying modes (Re λ < −tolerance); inf if none
  double stiffness = 0;           ///< max / min of −Re λ over the decaying modes; 0 if none
  std::vector<std::string> advice;

  double fraction_outside() const {
    return points.empty() ? 0 : static_cast<double>(outside) / static_cast<double>(points.size());
  }
};

/// Where the report takes its states.
struct StabilityOptions {
  const rt::PreparedData* data = nullptr; ///< null: the origin only
  int64_t samples = 4;                    ///< samples followed (from the data's first)
  int64_t states_per_sample = 10;         ///< states taken along each, evenly (at most)
  /// Jacobian rows (one VJP each in the interpreter) the report may spend
  /// on the data's states: a large state takes fewer states per sample,
  /// never fewer than kMinStatesPerSample (a 1600-state Delta-rule CDE: 3
  /// per sample over 4 samples instead of 10, a few seconds instead of a
  /// minute).
  int64_t jacobian_row_budget = 20000;
  static constexpr int64_t kMinStatesPerSample = 2;
  bool stability_informed = false; ///< the model already uses that initialiser (advice)
  /// Called after each state with (states done, states planned); returning
  /// false stops the report there (Ctrl-C), which then covers the states
  /// done. Null: no progress, no stop.
  std::function<bool(int64_t done, int64_t planned)> progress;
};

/// The report for parameters `theta` (the model's flat parameter vector).
StabilityReport stability_report(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                 const std::vector<double>& theta, const StabilityOptions& options);

/// The report as a text table and advice.
std::string format_stability(const StabilityReport& r);
/// Where the report took its states from, as its header line says it
/// ("3 states along each of 4 training samples' trajectories", "the origin
/// (z = 0, inputs 0)").
std::string states_origin(const StabilityReport& r);
/// One line for `plastic train` ("stability  midpoint h=4: 0 of 4 eigenvalues ... outside").
std::string stability_line(const StabilityReport& r);
nlohmann::json stability_json(const StabilityReport& r);

/// The reporter `plastic train` calls at initialisation: the report at the
/// origin, one line, and a warning naming `file` when points fall outside.
/// `fns` must outlive it.
rt::StabilityReporter make_stability_reporter(const model::ModelFunctions& fns,
                                              const std::string& file);

/// The region's boundary (|R| = 1) as closed polylines of points z = hλ,
/// traced along rays from −1 (inside every explicit RK method's region).
std::vector<std::complex<double>> stability_boundary(const std::string& solver);

/// Draws the region and the h·λ points to `png` with gnuplot; the error
/// message when it cannot (gnuplot missing or failing).
std::optional<std::string> plot_stability(const StabilityReport& r, const std::string& png);

} // namespace plastic::analysis
