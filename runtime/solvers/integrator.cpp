// The forward driver (see integrator.h): fixed grid, adaptive control with
// Hairer's initial step, events, lane freezing and failure reporting.
#include "runtime/solvers/integrator.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "runtime/solvers/tile_ops.h"
#include "runtime/support/interrupt.h"

namespace plastic::rt {

template <class T>
Integrator<T>::Integrator(const ModelView<T>& model, const TileProblem<T>& problem,
                          const Timeline& timeline, const SolverOptions& options, void* scratch,
                          MemoryMeter* meter)
    : model_(model), problem_(problem), timeline_(timeline), options_(options), scratch_(scratch),
      stepper_(model, problem.theta, problem.input, *options.tableau, options.use_fused_kernels,
               scratch, meter),
      controller_(*options.tableau), grid_{timeline.t0, options.step}, nl_(model.state_size()) {
  z_new_ = make_buffer<T>(nl_, meter);
  u_ = make_buffer<T>(std::max<size_t>(model.input_size(), 1), meter);
  y_ = make_buffer<T>(std::max<size_t>(model.output_size(), 1), meter);
  lane_loss_ = make_buffer<T>(static_cast<size_t>(model.lanes), meter);
  if (options.adaptive()) f1_ = make_buffer<T>(nl_, meter);
  if (options.adaptive() && options.step > 0) h_next_ = options.step;
}

template <class T> typename Integrator<T>::Cursor Integrator<T>::start() const {
  Cursor c;
  c.t = timeline_.t0;
  c.at_event = !timeline_.events.empty() && timeline_.events[0].t == timeline_.t0;
  return c;
}

template <class T>
SolveFailure Integrator<T>::located(FailureKind kind, int lane, double t, double h) const {
  SolveFailure f;
  f.kind = kind;
  f.lane = lane;
  f.sample = lane >= 0 ? problem_.first_sample + lane : -1;
  f.t = t;
  f.h = h;
  return f;
}

template <class T>
SolveFailure Integrator<T>::nonfinite_step_failure(const Item& step, int lane) const {
  SolveFailure f = located(FailureKind::NonFiniteState, lane, step.t, step.h);
  f.message = fmt::format(
      "the state became non-finite (inf or NaN) in the {} step from t={} to t={} (h={})",
      stepper_.tableau().name, step.t, step.t1, step.h);
  f.advice =
      "the solution may blow up here (a finite-time singularity), or the step is outside the "
      "method's stability region. Try a smaller step or an adaptive method (dopri5, tsit5) "
      "whose step follows the dynamics, and check this sample's inputs and the parameters for "
      "NaN or huge values";
  return f;
}

template <class T> Status<SolveFailure> Integrator<T>::advance(Cursor& c, T* z, Item& item) {
  stats.t_reached = c.t;
  if (c.at_event) return do_event(c, z, item);
  return step(c, z, z, item);
}

template <class T>
Status<SolveFailure> Integrator<T>::advance(Cursor& c, const T* z, T* next, Item& item) {
  stats.t_reached = c.t;
  if (c.at_event) {
    tile::copy(nl_, z, next); // events are rare: a copy, then the in-place event
    return do_event(c, next, item);
  }
  return step(c, z, next, item);
}

template <class T>
Status<SolveFailure> Integrator<T>::step(Cursor& c, const T* z, T* out, Item& item) {
  // A long solve (up to max_steps) must not outlive a Ctrl-C: the caller
  // sees the request as a failure of this solve and stops at its safe point.
  if (InterruptGuard::requested()) {
    SolveFailure f = located(FailureKind::Interrupted, -1, c.t, 0);
    f.message = "the solve was stopped by a signal";
    return f;
  }
  Status<SolveFailure> s = (options_.adaptive() && !replay_) ? adaptive_step(c, z, out, item)
                                                             : fixed_step(c, z, out, item);
  stats.t_reached = c.t;
  return s;
}

template <class T>
void Integrator<T>::read_output(size_t obs_index, double t, double lo, const T* z) {
  const Observation<T>& obs = problem_.observations[obs_index];
  const T* u = nullptr;
  if (model_.inputs) {
    problem_.input(InputRequest{t, lo, t}, u_.data());
    u = u_.data();
  }
  model_.output(t, z, problem_.theta, u, y_.data(), scratch_);
  if (outputs_)
    tile::copy(model_.output_size(), y_.data(), outputs_ + obs_index * model_.output_size());
  if (loss_ && obs.target) {
    model_.loss(y_.data(), obs.target, lane_loss_.data(), scratch_);
    for (int l = 0; l < model_.lanes; ++l)
      if (has_lane(obs.lanes & obs.loss_lanes, l))
        loss_[l] += static_cast<double>(lane_loss_[static_cast<size_t>(l)]);
  }
}

template <class T> Status<SolveFailure> Integrator<T>::do_event(Cursor& c, T* z, Item& item) {
  const TimelineEvent& ev = timeline_.events[c.event];
  item = Item{ItemKind::Event, ev.t, 0, ev.t, c.event, 0};
  if (ev.observation >= 0) {
    const size_t k = static_cast<size_t>(ev.observation);
    const Observation<T>& obs = problem_.observations[k];
    const double lo = c.event > 0 ? timeline_.events[c.event - 1].t : timeline_.t0;
    const bool reading = !quiet_ && model_.kernels().output && (outputs_ || (loss_ && obs.target));
    const bool after = obs.jump && model_.model.observe_after_jump;
    if (reading && !after) read_output(k, ev.t, lo, z);
    if (obs.jump) {
      const T* u = nullptr;
      if (model_.inputs) {
        problem_.input(InputRequest{ev.t, lo, ev.t}, u_.data());
        u = u_.data();
      }
      model_.jump(ev.t, z, problem_.theta, u, z_new_.data(), scratch_);
      const LaneMask mask = obs.lanes & all_lanes(model_.lanes);
      tile::copy_lanes(model_.n, model_.lanes, mask, z_new_.data(), z);
      if (int lane = tile::first_nonfinite_lane(model_.n, model_.lanes, mask, z); lane >= 0) {
        SolveFailure f = located(FailureKind::NonFiniteState, lane, ev.t, 0);
        f.message = fmt::format("the jump at observation {} produced a non-finite state", k);
        f.advice = "check this sample's observation at that time for NaN or huge values, and the "
                   "parameters of the jump for divergence";
        return f;
      }
    }
    if (reading && after) read_output(k, ev.t, lo, z);
  }
  ++c.event;
  c.at_event = false;
  k0_valid_ = false; // the input piece (and after a jump the state) changes here
  return {};
}

template <class T>
Status<SolveFailure> Integrator<T>::fixed_step(Cursor& c, const T* z, T* out, Item& item) {
  const double target = timeline_.events[c.event].t;
  double h;
  if (replay_) {
    h = (*replay_)[static_cast<size_t>(c.steps)][0];
  } else {
    h = grid_.next(c.t, target) - c.t;
  }
  const double t1 = step_end(c.t, h, target);
  if (!quiet_ && ++attempts_ > options_.step_limit()) {
    SolveFailure f = located(FailureKind::MaxStepsExceeded, -1, c.t, h);
    f.message = fmt::format("max_steps={} reached at t={} of [{}, {}]", options_.step_limit(), c.t,
                            timeline_.t0, timeline_.t_final);
    f.advice = "raise max_steps or use a larger step";
    return f;
  }
  const LaneMask active = timeline_.active_after(c.t);
  const LaneMask frozen = ~active & all_lanes(model_.lanes);
  // Into `out` directly when it is another buffer, or when the caller lets a
  // failed step clobber the state; else through z_new_, copied back below.
  const bool direct = out != z || (in_place_ && !frozen);
  T* z1 = direct ? out : z_new_.data();
  stepper_.step(c.t, h, t1, z, z1, false, false, stats);
  tile::copy_lanes(model_.n, model_.lanes, frozen, z, z1);
  item = Item{ItemKind::Step, c.t, h, t1, c.event, active};
  if (!defer_check_)
    if (int lane = tile::first_nonfinite_lane(model_.n, model_.lanes, active, z1); lane >= 0)
      return nonfinite_step_failure(item, lane);
  if (!direct) tile::copy(nl_, z1, out);
  c.t = t1;
  ++c.steps;
  ++stats.accepted_steps;
  c.at_event = (t1 == target);
  return {};
}

template <class T> void Integrator<T>::initial_step_size(double t, const T* z, double target) {
  // Hairer, Nørsett & Wanner I, Sec. II.4 ("starting step size"), per lane; the tile takes the
  // smallest. Needs f0 = f(t, z) in the stepper's first stage.
  const int L = model_.lanes;
  const LaneMask active = timeline_.active_after(t);
  const T* f0 = stepper_.first_stage();
  const double rtol = options_.rtol, atol = options_.atol;
  double h0 = std::numeric_limits<double>::infinity();
  for (int l = 0; l < L; ++l) {
    if (!has_lane(active, l)) continue;
    const double d0 = tile::rms_scaled_lane(model_.n, L, l, z, z, rtol, atol);
    const double d1 = tile::rms_scaled_lane(model_.n, L, l, f0, z, rtol, atol);
    h0 = std::min(h0, (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1);
  }
  h0 = std::min({h0, options_.dt_max, target - t});
  if (!(h0 > 0)) h0 = target - t;
  // One explicit Euler step estimates the second derivative.
  T* y1 = z_new_.data();
  tile::copy(nl_, z, y1);
  tile::axpy(nl_, h0, f0, y1);
  T* f1 = f1_.data();
  const double t_probe = step_end(t, h0, target);
  stepper_.eval_field(t_probe, t, t_probe, y1, f1, stats);
  tile::axpy(nl_, -1.0, f0, f1); // f1 - f0
  const double p = stepper_.tableau().order;
  double h = std::numeric_limits<double>::infinity();
  for (int l = 0; l < L; ++l) {
    if (!has_lane(active, l)) continue;
    const double d1 = tile::rms_scaled_lane(model_.n, L, l, f0, z, rtol, atol);
    const double d2 = tile::rms_scaled_lane(model_.n, L, l, f1, z, rtol, atol) / h0;
    const double dmax = std::max(d1, d2);
    const double h1 =
        dmax <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / dmax, 1.0 / (p + 1));
    h = std::min(h, std::min(100 * h0, h1));
  }
  // A non-finite derivative gives NaN here; start small and let the controller report it.
  h_next_ = std::isfinite(h) && h > 0 ? std::min(h, options_.dt_max) : h0;
}

template <class T> SolveFailure Integrator<T>::max_steps_failure(double t, double h) const {
  SolveFailure f = located(FailureKind::MaxStepsExceeded, worst_lane_, t, h);
  f.message =
      fmt::format("{} steps attempted (max_steps) and the solve only reached t={} of [{}, {}]",
                  attempts_, t, timeline_.t0, timeline_.t_final);
  f.advice =
      fmt::format("raise max_steps, loosen rtol/atol (now {:g}/{:g}), or use a fixed-step method; "
                  "a field that needs this many steps may be stiff here",
                  options_.rtol, options_.atol);
  return f;
}

// The controller's step fell below dt_min or under round-off: after
// non-finite attempts the field is at fault, else stiffness or a blow-up.
template <class T>
SolveFailure Integrator<T>::step_underflow_failure(double t, double h, bool last_nonfinite,
                                                   int64_t rejected) const {
  if (last_nonfinite) {
    // Shrinking the step did not help: the field itself gives inf/NaN here.
    SolveFailure f = located(FailureKind::NonFiniteState, worst_lane_, t, h);
    f.message = fmt::format(
        "every attempted step down to h={:.3g} produced non-finite values ({} rejected)", h,
        rejected);
    f.advice = "the field is inf or NaN just after this time for this sample: check its inputs "
               "(missing "
               "values must not reach the field as NaN) and the parameters for divergence";
    return f;
  }
  SolveFailure f = located(FailureKind::StepSizeUnderflow, worst_lane_, t, h);
  f.message = fmt::format("the step size fell to h={:.3g} (dt_min={:g}) after {} rejected attempts",
                          h, options_.dt_min, rejected);
  f.advice = fmt::format("the field is stiff or the solution blows up near t={:.6g}. If the "
                         "solution should stay bounded, "
                         "check this sample's inputs and the parameters (a large learning rate "
                         "can make the learned "
                         "field stiff); otherwise a fixed-step solver with a small step, or a "
                         "looser atol/rtol, gets "
                         "past this point at the cost of accuracy",
                         t);
  return f;
}

template <class T>
Status<SolveFailure> Integrator<T>::adaptive_step(Cursor& c, const T* z, T* out, Item& item) {
  const double target = timeline_.events[c.event].t;
  const LaneMask active = timeline_.active_after(c.t);
  const LaneMask frozen = ~active & all_lanes(model_.lanes);
  if (!k0_valid_) {
    stepper_.eval_first_stage(c.t, c.t, target, z, stats);
    k0_valid_ = true;
  }
  if (h_next_ <= 0) initial_step_size(c.t, z, target);
  bool last_nonfinite = false;
  int64_t rejected_here = 0;
  for (;;) {
    double h = std::min(h_next_, options_.dt_max);
    const bool clipped = h >= target - c.t;
    if (clipped) h = target - c.t;
    if (attempts_ >= options_.step_limit()) return max_steps_failure(c.t, h);
    const bool round_off =
        !(std::abs(h) > 8 * std::numeric_limits<double>::epsilon() * std::abs(c.t)) ||
        c.t + h == c.t;
    // A step cut to land on an event may be tiny: it ends exactly on the event, so only
    // steps the controller chose can underflow.
    if (!clipped && (h < options_.dt_min || round_off))
      return step_underflow_failure(c.t, h, last_nonfinite, rejected_here);
    ++attempts_;
    const double t1 = step_end(c.t, h, target);
    // A rejected attempt leaves z as it was, so a separate `out` takes the
    // attempt directly; in place, z_new_ holds it until accepted.
    T* z1 = out != z ? out : z_new_.data();
    stepper_.step(c.t, h, t1, z, z1, true, true, stats);
    tile::copy_lanes(model_.n, model_.lanes, frozen, z, z1);
    tile::LaneMax norm;
    tile::rms_error_norm(model_.n, model_.lanes, active, stepper_.error(), z, z1, options_.rtol,
                         options_.atol, norm);
    const PiController::Decision d = controller_.decide(norm.value);
    worst_lane_ = norm.lane; // the lane that limits the step size
    if (!d.accept) {
      ++stats.rejected_steps;
      ++rejected_here;
      last_nonfinite = !std::isfinite(norm.value);
      h_next_ = h * d.factor;
      continue;
    }
    const double wanted = h_next_;
    h_next_ = h * d.factor;
    if (clipped)
      h_next_ = std::max(h_next_, wanted); // a cut step says nothing against the proposal
    if (z1 != out) tile::copy(nl_, z1, out);
    if (stepper_.tableau().fsal) {
      stepper_.promote_last_stage();
    } else {
      k0_valid_ = false;
    }
    if (record_) *record_->push() = h;
    item = Item{ItemKind::Step, c.t, h, t1, c.event, active};
    c.t = t1;
    ++c.steps;
    ++stats.accepted_steps;
    c.at_event = (t1 == target);
    return {};
  }
}

template class Integrator<float>;
template class Integrator<double>;

} // namespace plastic::rt
