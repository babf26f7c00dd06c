// Stability-informed initialisation — Westny, Mohammadi, Jung & Frisk
// (paper 004), Sec. 4 and Algorithm 1 — jointly over the layers of one MLP.
//
// The field f(x) = W_n s(... s(W_1 [x; u] + b_1) ...) + b_n (Eq. 4) is
// linearised at the origin with small biases and unit activation slope
// (Eq. 5: df/dx ~ W_n ... W_1 = A). Algorithm 1 rejection-samples the
// eigenvalues of A inside the stability region of the solver for step h;
// the weights are then built so that A has exactly those eigenvalues
// (Eqs. 6–12) and the biases drawn from U(-1e-4, 1e-4) (Eq. 13). As a guard
// this implementation then recomputes the eigenvalues of the stored weights
// with Eigen and re-draws the whole network if any falls outside the region.
// See stability_informed.cpp for the step-by-step correspondence and for the
// places where the paper leaves a choice open.
//
// Table convention (runtime/abi.h, PLASTIC_INIT_STABILITY_INFORMED), read from
// the group's first weight (all members must agree):
//   args[0] = solver step h (0 -> InitOptions::step / the model's solver.step)
//   args[1] = sampling radius R of Algorithm 1's box mu ~ U(-R, -0.1),
//             omega ~ U(-R, R) in z = h lambda (0 -> 3, the paper's value)
//   args[2] = tries: most candidate eigenvalues drawn (0 -> 100 d_x + 100)
//   args[3] = use_complex of Algorithm 1: nonzero draws complex-conjugate
//             pairs, 0 only real eigenvalues (the authors' code defaults to
//             real). This slot is unused in abi.h's comment so far.
// The solver's stability polynomial comes from its Butcher tableau (the
// model's `solve` method), which the paper's Eq. 3 is for s = p <= 4.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/init/init.h"
#include "runtime/support/rng.h"
#include "runtime/support/train_error.h"

namespace plastic::rt::init_detail {

/// Bias half-width epsilon of paper 004 Eq. 13.
inline constexpr double kStabilityBiasBound = 1e-4;
/// Margin epsilon of Algorithm 1's test |R(z)| < 1 - epsilon. The paper leaves
/// it open; 1e-2 is the default of the authors' code (westny/neural-stability,
/// stb_init.init_strategy, eps = -1e-2 in their sign convention).
inline constexpr double kStabilityMargin = 1e-2;
/// Real-part upper bound of Algorithm 1's box, mu ~ U(-R, -0.1).
inline constexpr double kStabilityMuMax = -0.1;

/// One parameter of a group and where its staged values go (p.size elements).
struct StabilityMember {
  const plastic_param* param = nullptr;
  std::span<double> out;
};

struct StabilityContext {
  std::string solver;            ///< tableau name; empty -> error naming the fix
  double fallback_step = 0.0;    ///< used when args[0] is 0
  bool single_precision = false; ///< verify the float-rounded weights
};

/// Initialises one group (weights rank 2 in init_index order, biases rank 1).
Result<StabilityGroupReport, TrainError> init_stability_group(int32_t group,
                                                              std::vector<StabilityMember> members,
                                                              const StabilityContext& context,
                                                              Rng& rng);

} // namespace plastic::rt::init_detail
