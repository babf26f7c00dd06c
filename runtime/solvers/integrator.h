// The forward driver: walks a tile from t0 to its final time as a sequence
// of items, each either one accepted step or one event (observation, jump,
// knot, end of a lane's series).
//
// Fixed-step methods step on the grid t0 + j h (FixedGrid), cut at events.
// Adaptive methods use the embedded error estimate, the PI controller
// (controller.h), Hairer's initial step (HNW I, Sec. II.4) and FSAL reuse,
// and land exactly on every event. The same walker replays a recorded
// sequence of step sizes (checkpoint segments), so forward passes and
// recomputations make bit-identical steps.
//
// Adaptivity is per tile, not per sample: all L lanes take the same step,
// with the error norm maximised over the active lanes. That keeps the SIMD
// lanes in lockstep (one kernel call advances L samples) and costs extra
// steps for the easy samples of a tile: every lane takes the step size its
// hardest neighbour needs. The alternative (per-lane h) would make every
// kernel carry per-lane times and step sizes and let lanes drift apart, so
// tiles would stall on their slowest lane anyway. Sorting samples by length
// or difficulty into tiles recovers most of the cost.
#pragma once

#include "runtime/solvers/controller.h"
#include "runtime/solvers/memory.h"
#include "runtime/solvers/model_view.h"
#include "runtime/solvers/problem.h"
#include "runtime/solvers/rk_stepper.h"
#include "runtime/solvers/timeline.h"

namespace plastic::rt {

template <class T> class Integrator {
public:
  /// Where the walk is. Copyable: checkpoints store it next to the state.
  struct Cursor {
    double t = 0;
    size_t event = 0;      ///< next event not yet handled
    bool at_event = false; ///< t equals events[event].t and that event is due
    int64_t steps = 0;     ///< accepted steps so far
  };
  enum class ItemKind { Step, Event };
  /// What `advance` just did.
  struct Item {
    ItemKind kind = ItemKind::Step;
    double t = 0, h = 0, t1 = 0; ///< step from t to t1 (h = its size); events: t
    size_t event = 0;
    LaneMask active = 0; ///< lanes integrating during the step
  };

  /// `scratch` holds max_scratch_bytes(model) bytes and outlives the integrator.
  Integrator(const ModelView<T>& model, const TileProblem<T>& problem, const Timeline& timeline,
             const SolverOptions& options, void* scratch, MemoryMeter* meter);

  Cursor start() const;
  bool finished(const Cursor& c) const { return c.event >= timeline_.events.size(); }

  /// Performs the next item on z (n*L, in place). Adaptive steps retry until
  /// one is accepted. On failure z holds the last accepted state, unless
  /// the caller chose `discards_state_on_failure`.
  Status<SolveFailure> advance(Cursor& c, T* z, Item& item);
  /// Performs the next item from z into `next` (both n*L, distinct), leaving
  /// z as it was: a caller that keeps every state (the direct method's
  /// tape) steps from one slot into the next, with no copy of the state per
  /// item. On failure `next` is unspecified.
  Status<SolveFailure> advance(Cursor& c, const T* z, T* next, Item& item);
  /// The caller discards z when a step fails (the gradient methods only
  /// report the failure), so a failed fixed step may leave z clobbered:
  /// while every lane is active the step kernel then writes z in place (the
  /// ABI allows z1 == z0), saving two state copies per step.
  void discards_state_on_failure(bool on) { in_place_ = on; }
  /// Fixed steps skip their non-finite check: a caller that keeps every
  /// state checks them itself, once per interval between events (a
  /// non-finite value stays non-finite under z1 = z0 + h Σ bᵢ kᵢ), and
  /// reports a failure with nonfinite_step_failure().
  void defers_nonfinite_check(bool on) { defer_check_ = on; }
  /// The failure of the fixed step `step` whose result is non-finite in `lane`.
  SolveFailure nonfinite_step_failure(const Item& step, int lane) const;

  /// Forward passes may collect outputs (n_obs*o*L) and per-lane losses (L, +=) at observations.
  void collect(T* outputs, double* loss) {
    outputs_ = outputs;
    loss_ = loss;
  }
  /// Adaptive: append every accepted step size to `record` (forward) or take them from it (replay).
  void record_steps(ChunkedTape<double>* record) { record_ = record; }
  void replay_steps(const ChunkedTape<double>* replay) { replay_ = replay; }
  /// Recomputation of steps already taken: events only change the state
  /// (jumps, no outputs or losses) and max_steps is not counted again.
  void replaying(bool on) { quiet_ = on; }

  const Timeline& timeline() const { return timeline_; }
  RkStepper<T>& stepper() { return stepper_; }
  SolveStats stats;

private:
  // The steps read z and write the accepted state to `out`; out == z is the
  // in-place walk (through z_new_ unless in_place_ allows otherwise).
  Status<SolveFailure> step(Cursor& c, const T* z, T* out, Item& item);
  Status<SolveFailure> do_event(Cursor& c, T* z, Item& item);
  Status<SolveFailure> fixed_step(Cursor& c, const T* z, T* out, Item& item);
  Status<SolveFailure> adaptive_step(Cursor& c, const T* z, T* out, Item& item);
  SolveFailure max_steps_failure(double t, double h) const;
  SolveFailure step_underflow_failure(double t, double h, bool last_nonfinite,
                                      int64_t rejected) const;
  void initial_step_size(double t, const T* z, double target);
  void read_output(size_t obs_index, double t, double lo, const T* z);
  SolveFailure located(FailureKind kind, int lane, double t, double h) const;

  const ModelView<T>& model_;
  const TileProblem<T>& problem_;
  const Timeline& timeline_;
  const SolverOptions& options_;
  void* scratch_;
  RkStepper<T> stepper_;
  PiController controller_;
  FixedGrid grid_;
  size_t nl_;
  Buffer<T> z_new_, u_, y_, lane_loss_, f1_;
  T* outputs_ = nullptr;
  double* loss_ = nullptr;
  ChunkedTape<double>* record_ = nullptr;
  const ChunkedTape<double>* replay_ = nullptr;
  bool quiet_ = false;
  bool in_place_ = false;
  bool defer_check_ = false;
  bool k0_valid_ = false;
  double h_next_ = 0; // adaptive proposal (> 0)
  int64_t attempts_ = 0;
  int worst_lane_ = -1; // lane with the largest error in the last attempt
};

extern template class Integrator<float>;
extern template class Integrator<double>;

} // namespace plastic::rt
