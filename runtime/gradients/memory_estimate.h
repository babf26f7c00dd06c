// How much memory a gradient computation and a training step will hold,
// before anything is allocated: the one memory model behind `plastic check`'s
// estimate, `train`'s refusal of what cannot fit (`--memory-limit`), and the
// choice of `--gradient auto` from a budget.
//
// The per-tile figure follows the buffers the gradient methods take from
// their MemoryMeter (direct.cpp, checkpoint.cpp, adjoint.cpp, backprop.h,
// the integrator and the steppers): what `bench-train` measures as
// `gradient_peak_mb`, which the tests compare it with (within 20 %). Sizes
// are computed in double, so no product of dims, lanes and steps overflows.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "runtime/abi.h"
#include "runtime/solvers/model_view.h"

namespace plastic::rt {

/// The sizes a gradient computation's memory depends on.
struct MemoryShape {
  int64_t n_state = 0, n_params = 0, n_input = 0, n_outputs = 0;
  int lanes = 1;
  int element_bytes = 4;
  int stages = 4;                       ///< stages of the solver's tableau
  bool adaptive = false;                ///< the solver controls its step size
  int64_t max_steps = kDefaultMaxSteps; ///< adaptive: steps per solve before failing
  bool fused_step_vjp = false;          ///< the model's fused step VJP needs no stage buffers
  bool fused_adjoint_step = false;      ///< nor its fused adjoint step (AdjointStepper)
  double scratch_bytes = 0;             ///< the largest kernel scratch (0 when not compiled yet)

  /// From a compiled table (its solver line's tableau).
  static MemoryShape of(const plastic_model& m);
};

/// The walk of one tile: accepted solver steps and events (observations,
/// path knots, series ends); a gradient method stores per step or per event.
struct WalkLength {
  int64_t steps = 0;
  int64_t events = 1;
  int64_t items() const { return steps + events; }
};

/// The walk of a fixed-step solve from t0 over `event_times` (sorted, the last
/// is the end): the grid t0 + j h cut at every event, as the integrator steps.
WalkLength fixed_walk(double t0, double h, std::span<const double> event_times);

/// A gradient method and, for checkpointing, its interval (0 = sqrt of the items).
struct GradientChoice {
  GradientMethod method = GradientMethod::Direct;
  int64_t checkpoint_every = 0;
};

/// "direct", "checkpoint every 8 steps", "adjoint".
std::string describe(const GradientChoice& choice);

/// The interval a checkpoint choice uses on this walk (resolves 0).
int64_t checkpoint_interval(const GradientChoice& choice, const WalkLength& walk);

/// Peak bytes of the method's MemoryMeter for one tile of `shape.lanes` samples.
double gradient_tile_bytes(const MemoryShape& shape, const WalkLength& walk,
                           const GradientChoice& choice);

/// What one training step holds, by part.
struct StepMemory {
  double parameters = 0; ///< parameters, gradient, Adam's moments, the ordered tile sum
  double per_worker = 0; ///< one worker's tile workspace (scratch, z0, its theta_bar)
  double per_tile = 0;   ///< the gradient method's buffers for one tile
  int workers = 1;       ///< tiles in flight at once
  double gradient() const { return per_tile * workers; }
  double total() const { return parameters + workers * (per_worker + per_tile); }
};

StepMemory training_step_memory(const MemoryShape& shape, const WalkLength& walk,
                                const GradientChoice& choice, int workers);

/// `gradient auto`: the cheapest method whose gradient memory (per tile times
/// the tiles in flight, what bench-train reports as gradient_peak_mb) fits
/// `budget_bytes`: direct (no recomputation), else checkpointing at the
/// interval that needs least memory (one more forward pass), else the
/// adjoint (a backward solve; memory per event, not per step). nullopt when
/// none fits.
std::optional<GradientChoice> choose_gradient(const MemoryShape& shape, const WalkLength& walk,
                                              int workers, double budget_bytes);

/// MemAvailable of /proc/meminfo in bytes; nullopt where it cannot be read.
std::optional<double> available_memory_bytes();

/// Parses "512MB", "2 GB", "1.5G", "300M", "4096" (bytes); nullopt when malformed.
std::optional<double> parse_byte_size(const std::string& text);

/// "130 MB", "4.5 GB", "20 TB": bytes for a person (powers of 1024).
std::string format_bytes(double bytes);

} // namespace plastic::rt
