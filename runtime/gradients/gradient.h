// Gradient methods: the loss of a tile solve and its gradient with respect
// to the parameters, the initial state and (optionally) the inputs.
//
// The loss is the sum, over observations with a target and over the lanes
// each observes, of the model's per-lane loss of the output at that time
// (the final-time loss is an observation at t_end). Three methods:
//
//  * Direct (direct.cpp): stores the state before every item (accepted step
//    or event) and applies the step VJPs backwards — the exact gradient of
//    the computed discrete solution (discretise-then-optimise). For adaptive
//    methods the accepted step sizes are treated as constants, as in
//    diffrax's RecursiveCheckpointAdjoint and torchdiffeq's direct backprop:
//    the controller's dependence on theta is ignored. Memory O(N).
//  * Checkpoint (checkpoint.cpp): the same gradient, storing only every k-th
//    state and recomputing each segment forward before its backward sweep.
//    Memory O(N/k + k) states (k = sqrt(N) by default); the adaptive variant
//    also keeps the N accepted step sizes (8 bytes each) so replays are
//    bit-identical. Cost: one extra forward pass.
//  * Adjoint (adjoint.cpp): the continuous adjoint (optimise-then-
//    discretise; Chen et al. 2018, paper 000 Sec. 2.1): integrates
//    [z, a, g] backwards with a' = -a^T df/dz, g' = -a^T df/dtheta and its
//    own tolerances, adding the loss cotangents at observations. It keeps
//    the state at every event (observations, knots, series ends) to
//    re-anchor the backward solve there, so memory is O(events), independent
//    of the number of solver steps. Its gradient is accurate to the
//    tolerance, not exact for the discretisation.
//
// Every method reports the peak bytes it held (all its buffers come from a
// MemoryMeter), so the memory claims above are measured by the tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/abi.h"
#include "runtime/solvers/model_view.h"
#include "runtime/solvers/problem.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

/// How to differentiate. Built from plastic_gradient_desc or set by hand.
struct GradientOptions {
  GradientMethod method = GradientMethod::Direct;
  int64_t checkpoint_every = 0; ///< checkpoint: items per segment; 0 = ceil(sqrt(N))
  double adjoint_rtol = 0;      ///< adjoint: backward tolerances; 0 = the forward's
  double adjoint_atol = 0;
  /// Adjoint: leave the parameter cotangent out of the error norm ("seminorm",
  /// Kidger, Chen & Lyons 2021). Off by default: like torchdiffeq, the
  /// quadrature of dL/dtheta is error-controlled too.
  bool adjoint_seminorm = false;

  static Result<GradientOptions, SolveFailure> from_desc(const plastic_gradient_desc& desc);
};

/// Where the results go. theta_bar is required; the rest may be null/empty.
template <class T> struct GradientOutputs {
  T* theta_bar = nullptr;        ///< n_params, ACCUMULATED (+=): tiles sum into one gradient
  T* z0_bar = nullptr;           ///< n_state*L, written: dL/dz0
  double* loss = nullptr;        ///< L, written: each lane's summed loss
  InputCotangentFn<T> input_bar; ///< receives dL/du at every input sample the solve used
};

struct GradientResult {
  Status<SolveFailure> status;
  SolveStats forward;    ///< the forward pass (and, for checkpoint, its replays count as backward)
  SolveStats backward;   ///< the backward pass
  size_t peak_bytes = 0; ///< most bytes held at once by the method's buffers
  int64_t stored_states = 0; ///< states kept at once at the peak (tape, checkpoints, segment)
  bool ok() const { return status.ok(); }
};

/// Dispatches on options.method.
template <class T>
GradientResult loss_and_gradient(const TileProblem<T>& problem, const SolverOptions& solver,
                                 const GradientOptions& options, const T* z0,
                                 const GradientOutputs<T>& out) noexcept;

template <class T>
GradientResult gradient_direct(const TileProblem<T>& problem, const SolverOptions& solver,
                               const T* z0, const GradientOutputs<T>& out) noexcept;

template <class T>
GradientResult gradient_checkpoint(const TileProblem<T>& problem, const SolverOptions& solver,
                                   const GradientOptions& options, const T* z0,
                                   const GradientOutputs<T>& out) noexcept;

template <class T>
GradientResult gradient_adjoint(const TileProblem<T>& problem, const SolverOptions& solver,
                                const GradientOptions& options, const T* z0,
                                const GradientOutputs<T>& out) noexcept;

} // namespace plastic::rt
