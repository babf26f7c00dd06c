// Forward solves of one tile: the entry point for inference and evaluation.
//
//   SolveResult r = solve(problem, options, z, outputs, loss);
//   if (!r.status) log(r.status.describe());
//
// Integrates the tile from z(t0) = z to each lane's final time with the
// method in `options` (fixed grid or adaptive, see integrator.h), reading
// the output at every observation and accumulating the per-lane losses.
// Never throws; failures come back in `status` with the sample, time and
// advice.
#pragma once

#include <type_traits>

#include "runtime/solvers/model_view.h"
#include "runtime/solvers/problem.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

struct SolveResult {
  Status<SolveFailure> status;
  SolveStats stats;
  bool ok() const { return status.ok(); }
};

/// z: n_state*L, in: z0 at t0, out: each lane's state at its t_end (the last
/// accepted state on failure). outputs: n_obs*n_outputs*L or null. loss: L
/// per-lane sums over the observations with targets, accumulated (+=), or null.
template <class T>
SolveResult solve(const TileProblem<T>& problem, const SolverOptions& options, T* z,
                  std::type_identity_t<T>* outputs = nullptr, double* loss = nullptr) noexcept;

/// The checks every solve and gradient computation starts with: the model table,
/// the options, the kernels they need, inputs and observations.
template <class T>
Status<SolveFailure> check_problem(const TileProblem<T>& problem, const SolverOptions& options,
                                   const GradientMethod* gradient);

/// Fails with NonFiniteState when an active lane of z0 holds inf or NaN.
template <class T>
Status<SolveFailure> check_initial_state(const TileProblem<T>& problem, const T* z0);

extern template SolveResult solve<float>(const TileProblem<float>&, const SolverOptions&, float*,
                                         float*, double*) noexcept;
extern template SolveResult solve<double>(const TileProblem<double>&, const SolverOptions&, double*,
                                          double*, double*) noexcept;

} // namespace plastic::rt
