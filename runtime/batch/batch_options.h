// Options shared by the batch entry points (loss_and_gradient, predict,
// evaluate) and how they resolve against the model table.
#pragma once

#include <optional>

#include "runtime/abi.h"
#include "runtime/gradients/gradient.h"
#include "runtime/solvers/problem.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

class Communicator; // runtime/distributed/communicator.h

struct BatchOptions {
  /// The solver; default: the model's `solve` line (plastic_model::solver).
  std::optional<SolverOptions> solver;
  /// The gradient method; default: the model's `gradient` line.
  std::optional<GradientOptions> gradient;
  /// Threads over tiles; 0 = all hardware threads. Results are bitwise the
  /// same for every thread count (per-tile results reduced in tile order).
  int threads = 1;
  /// Data-parallel ranks (runtime/distributed): with more than one, each
  /// rank computes a contiguous share of the tiles and the results are
  /// reduced in tile order, so they are bitwise those of one process. Every
  /// rank must call with the same samples and parameters. Null: this process alone.
  Communicator* comm = nullptr;
  /// predict() and evaluate() put each series in a tile of its own
  /// (padding in the other lanes), so an adaptive solver's steps and a
  /// tile's union of knots depend on that series alone and it predicts the
  /// same in any file, at up to lanes times the work. Training keeps full
  /// tiles.
  bool series_alone = false;
};

/// The solver options to use: the override, else the table's solve line.
Result<SolverOptions, SolveFailure> resolve_solver(const plastic_model& model,
                                                   const BatchOptions& options);
/// The gradient options to use: the override, else the table's gradient line.
Result<GradientOptions, SolveFailure> resolve_gradient(const plastic_model& model,
                                                       const BatchOptions& options);

} // namespace plastic::rt
