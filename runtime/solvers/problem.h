// What a solve is asked to do: the tile problem (model, parameters, time
// span, observations, input path) and the solver options.
//
// One tile is L samples solved in lockstep (see integrator.h for why). The
// caller (the training loop) owns all buffers; the solver only reads them.
//
// Per-lane lengths. Series of unequal lengths share a tile: `t_end` gives
// each lane its final time. A lane is active while t < t_end[l]; afterwards
// its state is frozen (the kernels still compute it, the driver restores it)
// and it neither enters the error norm nor contributes to the parameter
// cotangent. Inactive lanes must still be fed finite inputs (e.g. the path
// held at its last value) and finite targets, because a 0 cotangent times a
// NaN is NaN.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>

#include "runtime/abi.h"
#include "runtime/solvers/status.h"
#include "runtime/solvers/tableau.h"

namespace plastic::rt {

/// One bit per lane (L <= 64).
using LaneMask = std::uint64_t;

/// Mask with the first L lanes set.
inline LaneMask all_lanes(int lanes) {
  return lanes >= 64 ? ~LaneMask{0} : ((LaneMask{1} << lanes) - 1);
}
inline bool has_lane(LaneMask m, int lane) {
  return (m >> lane) & 1u;
}

/// Where the solver needs the input sample u: at time t, for use inside the
/// interval [lo, hi] (a step, or at an observation the interval that ends
/// there). Steps never cross a knot, so a path with kinks or jumps at its
/// knots evaluates the piece containing (lo, hi): at t == lo or t == hi that
/// is the one-sided limit from inside the interval.
struct InputRequest {
  double t;
  double lo, hi;
};

/// Fills u (n_input*L elements, lane-interleaved) for a request.
template <class T> using InputFn = std::function<void(const InputRequest&, T* u)>;

/// Receives the cotangent of one input sample (n_input*L), already weighted:
/// dL/d(parameters of the path) = sum over calls of u_bar . du/dparameters.
template <class T>
using InputCotangentFn = std::function<void(const InputRequest&, const T* u_bar)>;

/// A time at which the output is read (and a loss taken) and/or a jump applied.
template <class T> struct Observation {
  double t = 0;
  LaneMask lanes = ~LaneMask{0}; ///< lanes observed here; others pass through unchanged
  const T* target = nullptr;     ///< n_targets*L; null: no loss here
  bool jump = false;             ///< apply the model's jump kernel (masked to `lanes`)
  /// Lanes whose loss counts here, intersected with `lanes`: a lane may jump at this time
  /// without a target of its own (its series goes on, or its target is missing).
  LaneMask loss_lanes = ~LaneMask{0};
  /// n_outputs*L: a cotangent of the output here, given instead of a target. The
  /// gradient methods then seed y_bar with it (on loss_lanes) where they would take
  /// the loss's VJP: the result is the VJP of the outputs (batch/output_vjp.h), what
  /// an autograd framework's backward asks for. The forward takes no loss here.
  const T* output_bar = nullptr;
};

/// The problem for one tile of L samples.
template <class T> struct TileProblem {
  const plastic_model* model = nullptr;
  const T* theta = nullptr; ///< n_params
  double t0 = 0;
  std::span<const double> t_end;                ///< 1 value (all lanes) or L values
  std::span<const Observation<T>> observations; ///< strictly increasing times in [t0, max t_end]
  std::span<const double> knots; ///< times where u may kink or jump; steps land on them
  InputFn<T> input;              ///< may be empty when n_input == 0
  int64_t first_sample = 0;      ///< data set index of lane 0, for messages
};

/// How to integrate. Built from plastic_solver_desc or set by hand.
/// The step limit of a solve whose `solve` line has no `max_steps` (the
/// DSL's default too, dsl/model.h). An adaptive solve that needs more is
/// failing (a stiff field, a blow-up); a fixed-step solve that needs more is
/// almost always a time column in another unit than the step
/// (runtime/batch/step_count.h refuses it before solving).
inline constexpr int64_t kDefaultMaxSteps = 100000;

struct SolverOptions {
  const ButcherTableau* tableau = nullptr;
  double step = 0;    ///< fixed: the step h (> 0); adaptive: first step, 0 = Hairer's choice
  double rtol = 1e-6; ///< adaptive only
  double atol = 1e-9; ///< adaptive only
  double dt_min = 0;  ///< adaptive: fail below this step size (0: only round-off)
  double dt_max = std::numeric_limits<double>::infinity();
  /// Attempted steps per solve; 0 selects kDefaultMaxSteps.
  int64_t max_steps = 0;
  bool use_fused_kernels = true; ///< use the model's step kernels when they match the tableau
  bool fixed_step = false; ///< an embedded pair takes fixed steps of `step` (no error control)

  /// Options from the model's `solve` line; fails on unknown methods or bad numbers.
  static Result<SolverOptions, SolveFailure> from_desc(const plastic_solver_desc& desc);
  /// Checks the numbers (step > 0 for fixed methods, tolerances > 0, ...).
  Status<SolveFailure> check() const;
  bool adaptive() const { return tableau && tableau->adaptive() && !fixed_step; }
  int64_t step_limit() const;
};

/// Work done by one solve (forward or backward).
struct SolveStats {
  int64_t field_evals = 0; ///< evaluations of f (a fused step counts its stages)
  int64_t vjp_evals = 0;   ///< evaluations of a field / augmented-field VJP
  int64_t accepted_steps = 0;
  int64_t rejected_steps = 0;
  double t_reached = std::numeric_limits<double>::quiet_NaN();

  SolveStats& operator+=(const SolveStats& o) {
    field_evals += o.field_evals;
    vjp_evals += o.vjp_evals;
    accepted_steps += o.accepted_steps;
    rejected_steps += o.rejected_steps;
    return *this;
  }
};

} // namespace plastic::rt
