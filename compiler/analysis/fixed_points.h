// Fixed points and slow points of a model's autonomous field — the field
// f(z, x) with its inputs held at one constant value x — and their
// linearisations, after Sussillo & Barak (2013) as paper 003 uses them
// (Sec. 6.1, App. F.4: Newton's method from states of the network's own
// trajectories, ‖ḣ‖ < 0.01, x = 0).
//
// From each start z₀ the finder minimises q(z) = ½‖f(z)‖² by Levenberg–
// Marquardt with the symbolic Jacobian J = ∂f/∂z (field_jacobian.h): the
// step (JᵀJ + μI) δ = −Jᵀf is Newton's step on f = 0 when μ is small, and
// gradient descent on q when Newton would not decrease it. A start ends at
// a fixed point (‖f‖ ≤ tolerance), at a slow point (a local minimum of q
// with ‖f‖ ≤ slow_tolerance: a ghost of a fixed point, or a point of an
// approximate continuous attractor, where the flow is slow), or nowhere.
//
// Ends closer than `merge` (relative) are one point. Each point is
// classified by the eigenvalues λ of J there: stable (every Re λ < −ε),
// marginal (none > ε, some within ε of 0: the "marginally stable" points
// of a continuous attractor, paper 003 Sec. 6.1 and App. C), saddle (some
// Re λ > ε and some < −ε; the count of unstable directions), unstable
// (every direction unstable). ε = marginal·max|λ|, relative so that the
// field's time scale (τ = 10 ms in the flip-flop) does not set it.
//
// Each point also gets the model's observation outputs there (the
// readout: which memory of the flip-flop it holds).
//
// Starts: states along reference trajectories of real samples (with their
// own inputs, reference_run.h) when data are given; without data the
// origin and random states z₀ ~ N(0, I).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/abi/layout.h"
#include "compiler/model/model_functions.h"
#include "runtime/batch/prepared_data.h"

namespace plastic::analysis {

enum class FixedPointKind { Stable, Marginal, Saddle, Unstable };

/// "stable", "marginal", "saddle", "unstable".
const char* kind_name(FixedPointKind k);

/// One fixed or slow point.
struct FixedPoint {
  std::vector<double> z;                    ///< the state, flattened in the field's order
  double speed = 0;                         ///< ‖f(z)‖
  bool slow = false;                        ///< ‖f‖ above the tolerance: a slow point
  int64_t hits = 0;                         ///< starts that ended here
  std::vector<double> outputs;              ///< the model's observation outputs there (empty: none)
  std::vector<std::complex<double>> lambda; ///< eigenvalues of ∂f/∂z, largest Re first
  int64_t unstable = 0;                     ///< eigenvalues with Re λ > ε
  int64_t marginal = 0;                     ///< eigenvalues with |Re λ| ≤ ε
  FixedPointKind kind = FixedPointKind::Stable;

  double spectral_abscissa() const { return lambda.empty() ? 0 : lambda.front().real(); }
  double spectral_radius() const;
};

struct FixedPointOptions {
  const rt::PreparedData* data = nullptr; ///< starts along its trajectories; null: random starts
  int64_t samples = 4;                    ///< samples followed with data
  int64_t starts = 100;                   ///< starts in all
  double input = 0;                       ///< the value every input is held at
  double tolerance = 1e-8;                ///< ‖f‖ at or below: a fixed point
  double slow_tolerance = 1e-2;           ///< ‖f‖ at or below: a slow point (App. F.4's 0.01)
  double merge = 1e-3;                    ///< ends within merge·(1 + ‖z‖) are one point
  double marginal = 1e-3;                 ///< ε relative to max |λ|
  int64_t max_iterations = 200;
  uint64_t seed = 0; ///< random starts
};

struct FixedPointReport {
  double input = 0;
  int64_t state_size = 0;
  int64_t starts = 0;
  int64_t to_fixed = 0;           ///< starts that ended at a fixed point
  int64_t to_slow = 0;            ///< ... at a slow point
  int64_t to_nowhere = 0;         ///< ... at neither (still fast, diverged, or not finite)
  std::vector<FixedPoint> points; ///< fixed points first, then slow points; each by ‖z‖
  std::vector<std::vector<double>> start_states; ///< every start, flattened

  int64_t count(FixedPointKind k, bool slow) const;
};

/// The fixed and slow points of the field for parameters `theta`.
FixedPointReport find_fixed_points(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                   const std::vector<double>& theta,
                                   const FixedPointOptions& options);

/// Classifies eigenvalues (see the file comment); sorts `lambda` largest
/// real part first and fills unstable, marginal and kind.
void classify(FixedPoint& p, double marginal);

/// A summary and one row per point.
std::string format_fixed_points(const FixedPointReport& r);
nlohmann::json fixed_points_json(const FixedPointReport& r);

} // namespace plastic::analysis
