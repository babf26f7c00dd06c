// The continuous adjoint method (gradient.h; Chen et al. 2018; paper 000
// Sec. 2.1). Forward: a plain solve that keeps the state just before every
// event. Backward, event by event from the end: re-anchor z to the stored
// forward state, pass the cotangent through the event (loss, jump), then
// integrate the augmented system (adjoint_stepper.h) back to the previous
// event. Fixed-step forward methods integrate backwards on the same grid;
// adaptive ones with the adjoint tolerances, the PI controller and FSAL.
//
// Error norm of the backward solve: Hairer's RMS norm over [z; a] per lane,
// maximised over the active lanes, and (unless `adjoint_seminorm`) the RMS
// norm of the tile-summed parameter increment, combined by max — the mixed
// norm torchdiffeq uses for its adjoint.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "runtime/gradients/adjoint_stepper.h"
#include "runtime/gradients/backprop.h"
#include "runtime/gradients/gradient.h"
#include "runtime/solvers/controller.h"
#include "runtime/solvers/integrator.h"
#include "runtime/solvers/tile_ops.h"
#include "runtime/support/interrupt.h"

namespace plastic::rt {

namespace {

/// The backward sweep over one interval between events, with its controller state.
template <class T> class BackwardSolve {
public:
  BackwardSolve(const ModelView<T>& view, const TileProblem<T>& problem, const Timeline& tl,
                const SolverOptions& solver, const GradientOptions& options,
                AdjointStepper<T>& stepper, MemoryMeter* meter, GradientResult& result,
                const InputCotangentFn<T>* sink)
      : view_(view), problem_(problem), tl_(tl), solver_(solver), stepper_(stepper),
        controller_(*solver.tableau), result_(result), sink_(sink), nl_(view.state_size()),
        P_(static_cast<size_t>(view.params)) {
    rtol_ = options.adjoint_rtol > 0 ? options.adjoint_rtol : solver.rtol;
    atol_ = options.adjoint_atol > 0 ? options.adjoint_atol : solver.atol;
    seminorm_ = options.adjoint_seminorm;
    y_new_ = make_buffer<T>(2 * nl_, meter);
    saved_ = make_buffer<T>(2 * nl_, meter);
    g_ = make_buffer<T>(std::max<size_t>(P_, 1), meter);
    g_new_ = make_buffer<T>(std::max<size_t>(P_, 1), meter);
  }

  /// The ODE part of dL/dtheta accumulated so far.
  const T* theta_cotangent() const { return g_.data(); }

  /// Integrates Y = [z; a] from t_hi back to t_lo (< t_hi).
  Status<SolveFailure> run(double t_hi, double t_lo, T* Y) {
    const int L = view_.lanes;
    const LaneMask active = tl_.active_after(t_lo);
    const LaneMask frozen = ~active & all_lanes(L);
    // Frozen lanes (series ended before t_hi) hold z and a; a = 0 while integrating keeps
    // their parameter contribution exactly zero.
    tile::copy(2 * nl_, Y, saved_.data());
    tile::zero_lanes(view_.n, L, frozen, Y + nl_);
    // The state alternates between Y and y_new_: an accepted step swaps the
    // two instead of copying [z; a] back (8 % of the speech Delta CDE's
    // adjoint training step went to that copy).
    T* y = Y;
    T* y_new = y_new_.data();
    Status<SolveFailure> status = solver_.adaptive()
                                      ? adaptive_steps(t_hi, t_lo, active, frozen, y, y_new)
                                      : fixed_steps(t_hi, t_lo, active, frozen, Y, y, y_new);
    if (!status) return status;
    if (y != Y) tile::copy(2 * nl_, y, Y);
    tile::copy_lanes(view_.n, L, frozen, saved_.data() + nl_, Y + nl_);
    return {};
  }

private:
  /// Steps back on the forward method's fixed grid. A non-finite value stays
  /// non-finite under y1 = y0 + h Σ bᵢ kᵢ (inf or NaN plus anything is inf or
  /// NaN), so the state is checked once, at the interval's end, instead of
  /// after every step (6 % of the speech Delta CDE's adjoint training step);
  /// a failed interval is replayed from its start, checking every step, to
  /// name the step where it failed.
  Status<SolveFailure> fixed_steps(double t_hi, double t_lo, LaneMask active, LaneMask frozen, T* Y,
                                   T*& y, T*& y_new) {
    if (Status<SolveFailure> s = fixed_sweep(t_hi, t_lo, active, frozen, false, y, y_new); !s)
      return s;
    const int lane = tile::first_nonfinite_lane(2 * view_.n, view_.lanes, active, y);
    if (lane < 0) return {};
    tile::copy(2 * nl_, saved_.data(), Y);
    tile::zero_lanes(view_.n, view_.lanes, frozen, Y + nl_);
    y = Y;
    y_new = y_new_.data();
    if (Status<SolveFailure> s = fixed_sweep(t_hi, t_lo, active, frozen, true, y, y_new); !s)
      return s;
    return failure(FailureKind::NonFiniteState, lane, t_lo, 0); // not reached: see above
  }

  /// One pass of fixed steps from t_hi to t_lo. `locate`: check the active
  /// lanes after every step and stop at the first non-finite state, without
  /// accumulating the θ-gradient or the statistics (a replay).
  Status<SolveFailure> fixed_sweep(double t_hi, double t_lo, LaneMask active, LaneMask frozen,
                                   bool locate, T*& y, T*& y_new) {
    const int L = view_.lanes;
    const FixedGrid grid{tl_.t0, solver_.step};
    SolveStats replay_stats;
    SolveStats& stats = locate ? replay_stats : result_.backward;
    int64_t attempts = 0;
    double t = t_hi;
    while (t > t_lo) {
      if (++attempts > solver_.step_limit())
        return failure(FailureKind::MaxStepsExceeded, -1, t, 0);
      if (InterruptGuard::requested()) return failure(FailureKind::Interrupted, -1, t, 0);
      const double h = grid.prev(t, t_lo) - t;
      const double t1 = step_end(t, h, t_lo);
      stepper_.step(t, h, t1, y, y_new, false, false, stats);
      tile::copy_lanes(2 * view_.n, L, frozen, y, y_new);
      if (locate) {
        if (int lane = tile::first_nonfinite_lane(2 * view_.n, L, active, y_new); lane >= 0)
          return failure(FailureKind::NonFiniteState, lane, t, h);
      } else {
        accept(t, h, t1);
      }
      std::swap(y, y_new);
      t = t1;
    }
    return {};
  }

  /// Steps back with the adjoint tolerances, the PI controller and FSAL.
  Status<SolveFailure> adaptive_steps(double t_hi, double t_lo, LaneMask active, LaneMask frozen,
                                      T*& y, T*& y_new) {
    const int L = view_.lanes;
    bool k0_valid = false;
    int64_t attempts = 0;
    double t = t_hi;
    while (t > t_lo) {
      if (++attempts > solver_.step_limit())
        return failure(FailureKind::MaxStepsExceeded, -1, t, 0);
      if (InterruptGuard::requested()) return failure(FailureKind::Interrupted, -1, t, 0);
      if (!k0_valid) {
        stepper_.eval_first_stage(t, t_lo, t, y, result_.backward);
        k0_valid = true;
      }
      if (h_next_ <= 0) h_next_ = initial_step(t, t_lo, y, active);
      double h = std::min(h_next_, solver_.dt_max);
      const bool clipped = h >= t - t_lo;
      if (clipped) h = t - t_lo;
      if (!clipped &&
          (h < solver_.dt_min || !(h > 8 * std::numeric_limits<double>::epsilon() * std::abs(t)) ||
           t - h == t))
        return failure(FailureKind::StepSizeUnderflow, worst_lane_, t, -h);
      const double t1 = step_end(t, -h, t_lo);
      stepper_.step(t, -h, t1, y, y_new, true, true, result_.backward);
      tile::copy_lanes(2 * view_.n, L, frozen, y, y_new);
      tile::LaneMax norm;
      tile::rms_error_norm(2 * view_.n, L, active, stepper_.error(), y, y_new, rtol_, atol_, norm);
      double err = norm.value;
      if (!seminorm_ && P_ > 0) {
        // Over the field's span of theta; the rest has zero error but counts in the mean.
        const size_t b = stepper_.theta_begin(), e = stepper_.theta_end();
        for (size_t i = b; i < e; ++i)
          g_new_[i] = g_[i] + stepper_.theta_increment()[i];
        err = std::max(err, tile::rms_error_shared(e - b, stepper_.theta_error() + b, g_.data() + b,
                                                   g_new_.data() + b, rtol_, atol_, P_));
      }
      const PiController::Decision d = controller_.decide(err);
      worst_lane_ = norm.lane;
      if (!d.accept) {
        ++result_.backward.rejected_steps;
        h_next_ = h * d.factor;
        continue;
      }
      const double wanted = h_next_;
      h_next_ = h * d.factor;
      if (clipped) h_next_ = std::max(h_next_, wanted);
      accept(t, -h, t1);
      std::swap(y, y_new);
      if (solver_.tableau->fsal)
        stepper_.promote_last_stage();
      else
        k0_valid = false;
      t = t1;
    }
    return {};
  }

  /// Takes the step's θ increment and inputs' cotangents; the caller swaps the states.
  void accept(double t, double h, double t1) {
    const size_t b = stepper_.theta_begin();
    tile::axpy(stepper_.theta_end() - b, 1.0, stepper_.theta_increment() + b, g_.data() + b);
    if (sink_) stepper_.emit_inputs(t, h, t1, *sink_);
    ++result_.backward.accepted_steps;
  }

  /// Hairer's first guess 0.01 |Y| / |Y'| per lane (HNW I, II.4 steps a-c), min over lanes.
  double initial_step(double t, double t_lo, const T* Y, LaneMask active) const {
    double h = std::numeric_limits<double>::infinity();
    for (int l = 0; l < view_.lanes; ++l) {
      if (!has_lane(active, l)) continue;
      const double d0 = tile::rms_scaled_lane(2 * view_.n, view_.lanes, l, Y, Y, rtol_, atol_);
      const double d1 = tile::rms_scaled_lane(2 * view_.n, view_.lanes, l, stepper_.first_stage(),
                                              Y, rtol_, atol_);
      h = std::min(h, (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1);
    }
    if (!std::isfinite(h) || !(h > 0)) h = 1e-6;
    return std::min({h, solver_.dt_max, t - t_lo});
  }

  SolveFailure failure(FailureKind kind, int lane, double t, double h) const {
    SolveFailure f;
    f.kind = kind;
    f.lane = lane;
    f.sample = lane >= 0 ? problem_.first_sample + lane : -1;
    f.t = t;
    f.h = h;
    f.message =
        fmt::format("the backward (adjoint) solve failed while integrating from t={} towards t={}",
                    tl_.t_final, tl_.t0);
    f.advice =
        "the reconstructed state or the adjoint diverges backwards in time (dynamics that contract "
        "forwards expand backwards). Use `gradient checkpoint` or `gradient direct`, which do not "
        "integrate backwards, or tighten the adjoint tolerances";
    if (kind == FailureKind::MaxStepsExceeded)
      f.advice = "raise max_steps or loosen the adjoint tolerances; or use `gradient checkpoint`";
    if (kind == FailureKind::Interrupted) {
      f.message = "the backward (adjoint) solve was stopped by a signal";
      f.advice.clear();
    }
    return f;
  }

  const ModelView<T>& view_;
  const TileProblem<T>& problem_;
  const Timeline& tl_;
  const SolverOptions& solver_;
  AdjointStepper<T>& stepper_;
  PiController controller_;
  GradientResult& result_;
  const InputCotangentFn<T>* sink_;
  size_t nl_, P_;
  double rtol_ = 0, atol_ = 0;
  bool seminorm_ = false;
  double h_next_ = 0;
  int worst_lane_ = -1;
  Buffer<T> y_new_, saved_, g_, g_new_;
};

/// Checks the state `z` that the fixed steps of one interval left on the
/// lanes `stepped`. A value that is inf or NaN stays so under z1 = z0 + h Σ
/// bᵢ kᵢ, so the interval's last state tells for all of its steps (a check
/// after every step was 2.4 % of the speech Delta CDE's adjoint training
/// step). A failed interval is replayed from `start`, the state before the
/// event at cursor `opened`, checking every step, to name the step.
template <class T>
Status<SolveFailure>
check_interval(const ModelView<T>& view, const TileProblem<T>& problem, const Timeline& timeline,
               const SolverOptions& solver, void* scratch, MemoryMeter* meter, const T* start,
               const typename Integrator<T>::Cursor& opened, LaneMask stepped, const T* z) {
  if (!stepped) return {};
  const int lane = tile::first_nonfinite_lane(view.n, view.lanes, stepped, z);
  if (lane < 0) return {};
  Integrator<T> replay(view, problem, timeline, solver, scratch, meter);
  replay.replaying(true);
  replay.discards_state_on_failure(true);
  Buffer<T> y = make_buffer<T>(view.state_size(), meter);
  tile::copy(view.state_size(), start, y.data());
  typename Integrator<T>::Cursor c = opened;
  typename Integrator<T>::Item item;
  do {
    if (Status<SolveFailure> s = replay.advance(c, y.data(), item); !s) return s;
  } while (!replay.finished(c) && !c.at_event);
  // Not reached when every step's state is z0 + an increment: see above.
  SolveFailure f;
  f.kind = FailureKind::NonFiniteState;
  f.lane = lane;
  f.sample = problem.first_sample + lane;
  f.t = c.t;
  f.message = "the state is non-finite (inf or NaN) at the end of a forward interval";
  return f;
}

} // namespace

template <class T>
GradientResult gradient_adjoint(const TileProblem<T>& problem, const SolverOptions& solver,
                                const GradientOptions& options, const T* z0,
                                const GradientOutputs<T>& out) noexcept {
  return guarded([&]() {
    GradientResult r;
    GradientSession<T> session;
    r.status = session.open(problem, solver, GradientMethod::Adjoint, z0, out);
    if (!r.status) return r;
    if (options.adjoint_rtol < 0 || options.adjoint_atol < 0) {
      r.status = invalid_argument("adjoint tolerances must be >= 0",
                                  "0 uses the forward solve's tolerances");
      return r;
    }
    const ModelView<T>& view = *session.view;
    const Timeline& timeline = *session.timeline;
    MemoryMeter* meter = &session.meter;
    const size_t nl = view.state_size();
    using Walk = Integrator<T>;

    // Forward: keep the state just before every event. Fixed steps are
    // checked for inf and NaN once per interval between events (see
    // check_interval).
    ChunkedTape<T> event_states(nl, 16, meter);
    Buffer<double> loss = make_buffer<double>(static_cast<size_t>(view.lanes), meter);
    {
      Buffer<T> z = make_buffer<T>(nl, meter);
      tile::copy(nl, z0, z.data());
      Walk walk(view, problem, timeline, solver, session.scratch->data(), meter);
      walk.collect(nullptr, loss.data());
      walk.discards_state_on_failure(true);
      walk.defers_nonfinite_check(true);
      typename Walk::Cursor c = walk.start();
      typename Walk::Cursor opened = c; // at the event that opened the interval
      typename Walk::Item item;
      LaneMask stepped = 0; // the lanes of the interval's steps so far
      const auto check = [&]() {
        Status<SolveFailure> s =
            check_interval(view, problem, timeline, solver, session.scratch->data(), meter,
                           event_states.size() ? event_states[event_states.size() - 1] : z0, opened,
                           stepped, z.data());
        stepped = 0;
        return s;
      };
      while (!walk.finished(c)) {
        if (c.at_event) {
          r.status = check();
          if (!r.status) {
            r.forward = walk.stats;
            return r;
          }
          tile::copy(nl, z.data(), event_states.push());
          opened = c;
        }
        r.status = walk.advance(c, z.data(), item);
        if (!r.status) {
          r.forward = walk.stats;
          return r;
        }
        if (item.kind == Walk::ItemKind::Step) stepped |= item.active;
      }
      r.forward = walk.stats;
      r.status = check(); // steps after the last event, if any
      if (!r.status) return r;
    }
    r.stored_states = static_cast<int64_t>(event_states.size());

    // Backward.
    const InputCotangentFn<T>* sink = out.input_bar ? &out.input_bar : nullptr;
    AdjointStepper<T> stepper(view, problem.theta, problem.input, *solver.tableau, sink != nullptr,
                              solver.use_fused_kernels, session.scratch->data(), meter);
    BackwardSolve<T> backward(view, problem, timeline, solver, options, stepper, meter, r, sink);
    EventBackprop<T> events(view, problem, timeline, session.scratch->data(), meter);
    Buffer<T> Y = make_buffer<T>(2 * nl, meter); // [z; a]
    for (size_t e = timeline.events.size(); e-- > 0;) {
      tile::copy(nl, event_states[e], Y.data()); // re-anchor z to the forward solution
      events.apply(e, Y.data(), Y.data() + nl, out.theta_bar, sink);
      const double t_hi = timeline.events[e].t;
      const double t_lo = e > 0 ? timeline.events[e - 1].t : timeline.t0;
      if (t_lo < t_hi) {
        r.status = backward.run(t_hi, t_lo, Y.data());
        if (!r.status) return r;
      }
    }
    tile::axpy(static_cast<size_t>(view.params), 1.0, backward.theta_cotangent(), out.theta_bar);
    if (out.z0_bar) tile::copy(nl, Y.data() + nl, out.z0_bar);
    if (out.loss) std::copy(loss.begin(), loss.end(), out.loss);
    r.peak_bytes = meter->peak();
    return r;
  });
}

template GradientResult gradient_adjoint<float>(const TileProblem<float>&, const SolverOptions&,
                                                const GradientOptions&, const float*,
                                                const GradientOutputs<float>&) noexcept;
template GradientResult gradient_adjoint<double>(const TileProblem<double>&, const SolverOptions&,
                                                 const GradientOptions&, const double*,
                                                 const GradientOutputs<double>&) noexcept;

} // namespace plastic::rt
