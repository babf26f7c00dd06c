// Parameter initialisation from the model's parameter table.
//
// Every parameter tensor of a compiled model carries, in its `plastic_param`
// entry (runtime/abi.h), an initialiser kind, up to four arguments, the
// fan-in/fan-out the compiler derived from the tensor's role, and an
// init_group/init_index for initialisers that act jointly on the layers of
// one MLP (paper 004's stability-informed initialisation). This component
// turns that table plus a seed into theta.
//
// Guarantees:
//  * Deterministic for a seed and independent of thread count and of the
//    order in which parameters are processed: each parameter draws from its
//    own Philox stream (runtime/support/rng.h) keyed by the seed and a hash of
//    its name (joint groups: of the group id), so adding or resizing one
//    parameter leaves the values of every other parameter unchanged.
//  * All arithmetic is in double; values are rounded to T once, at the end.
//    The float and double results of one seed therefore agree to rounding.
//  * Nothing outside a parameter's [offset, offset+size) is written, and on
//    failure theta is not touched at all (everything is staged first).
//  * Failures (inconsistent table, missing fan-in, unknown kind, a
//    stability-informed request that no sample satisfies) come back as a
//    TrainError whose message names the parameter and says what to change.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

/// Settings that do not live in the parameter table.
struct InitOptions {
  /// Explicit Runge–Kutta method whose stability region the stability-informed
  /// initialiser respects (tableau name from runtime/solvers/tableau.h: "euler",
  /// "rk4", "dopri5", ...). Empty: the model's `solver.method` (model overload);
  /// required by the span overload only when a parameter is stability_informed.
  std::string solver;
  /// Step h used by stability_informed when a parameter's init_args[0] is 0.
  /// 0: the model's `solver.step` (model overload).
  double step = 0.0;
};

/// What the stability-informed initialiser did for one init_group.
struct StabilityGroupReport {
  int32_t group = -1;      ///< init_group id (-1: a lone parameter)
  std::string first_param; ///< name of the group's first weight, for messages
  std::string solver;      ///< tableau whose stability polynomial was used
  double h = 0.0;          ///< solver step
  int64_t state_dim = 0;   ///< d_x, eigenvalues of the linearised field
  int64_t draws = 0;       ///< candidate eigenvalues drawn (Algorithm 1 iterations)
  int64_t rejected = 0;    ///< of which rejected by the stability criterion
  int attempts = 0;        ///< whole-network samples built (re-drawn if verification failed)
  /// Eigenvalues of the linearised field A = W_n ... W_1 (state columns), as
  /// recomputed by Eigen from the stored (rounded) weights.
  std::vector<std::complex<double>> eigenvalues;
  /// max |R(h lambda)| over those eigenvalues (R: the method's stability polynomial).
  double max_amplification = 0.0;
};

/// Summary of one initialisation.
struct InitReport {
  std::vector<StabilityGroupReport> stability_groups;
};

/// Initialises every parameter of `params` into theta (theta.size() must cover
/// every offset+size). T = float or double.
template <class T>
Result<InitReport, TrainError> initialise_parameters(std::span<const plastic_param> params,
                                                     std::span<T> theta, uint64_t seed,
                                                     const InitOptions& options = {});

/// The same driven by a model table: checks dtype and n_params against theta
/// and takes the solver (and fallback step) from the model unless `options`
/// overrides them.
template <class T>
Result<InitReport, TrainError> initialise_parameters(const plastic_model& model, std::span<T> theta,
                                                     uint64_t seed,
                                                     const InitOptions& options = {});

extern template Result<InitReport, TrainError>
initialise_parameters<float>(std::span<const plastic_param>, std::span<float>, uint64_t,
                             const InitOptions&);
extern template Result<InitReport, TrainError>
initialise_parameters<double>(std::span<const plastic_param>, std::span<double>, uint64_t,
                              const InitOptions&);
extern template Result<InitReport, TrainError>
initialise_parameters<float>(const plastic_model&, std::span<float>, uint64_t, const InitOptions&);
extern template Result<InitReport, TrainError> initialise_parameters<double>(const plastic_model&,
                                                                             std::span<double>,
                                                                             uint64_t,
                                                                             const InitOptions&);

/// Lower-case name of a plastic_init_kind ("glorot_uniform"), "unknown" otherwise.
const char* init_kind_name(int32_t kind);

/// Short human description for summaries: "glorot_uniform(gain 1)",
/// "critical(sigma_w 1.18921, layers 3)", "stability_informed(h 0.1, ...)".
/// Defaults the initialiser would apply are shown resolved.
std::string describe_init(const plastic_param& param);

} // namespace plastic::rt
