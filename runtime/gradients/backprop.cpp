// Shared reverse-sweep pieces of the gradient methods (see backprop.h).
#include "runtime/gradients/backprop.h"

#include <algorithm>

#include "runtime/solvers/solve.h"
#include "runtime/solvers/tile_ops.h"

namespace plastic::rt {

template <class T>
Status<SolveFailure> GradientSession<T>::open(const TileProblem<T>& problem,
                                              const SolverOptions& solver, GradientMethod method,
                                              const T* z0, const GradientOutputs<T>& out) {
  if (Status<SolveFailure> s = open(problem, solver, method, z0); !s) return s;
  return check_outputs(problem, out);
}

template <class T>
Status<SolveFailure> GradientSession<T>::open(const TileProblem<T>& problem,
                                              const SolverOptions& solver, GradientMethod method,
                                              const T* z0) {
  if (Status<SolveFailure> s = check_problem<T>(problem, solver, &method); !s) return s;
  if (Status<SolveFailure> s = check_initial_state(problem, z0); !s) return s;
  view.emplace(*problem.model);
  Result<Timeline, SolveFailure> tl = build_timeline(problem, view->lanes, &meter);
  if (!tl) return tl.status();
  timeline.emplace(std::move(tl.value()));
  scratch.emplace(max_scratch_bytes(*problem.model), &meter);
  return {};
}

template <class T>
EventBackprop<T>::EventBackprop(const ModelView<T>& model, const TileProblem<T>& problem,
                                const Timeline& timeline, void* scratch, MemoryMeter* meter)
    : model_(model), problem_(problem), timeline_(timeline), scratch_(scratch),
      nl_(model.state_size()) {
  u_ = make_buffer<T>(std::max<size_t>(model.input_size(), 1), meter);
  ubar_ = make_buffer<T>(std::max<size_t>(model.input_size(), 1), meter);
  z_post_ = make_buffer<T>(nl_, meter);
  y_ = make_buffer<T>(std::max<size_t>(model.output_size(), 1), meter);
  ybar_ = make_buffer<T>(std::max<size_t>(model.output_size(), 1), meter);
  lane_weight_ = make_buffer<T>(static_cast<size_t>(model.lanes), meter);
  a_in_ = make_buffer<T>(nl_, meter);
  a_out_ = make_buffer<T>(nl_, meter);
}

template <class T>
void EventBackprop<T>::loss_vjp_at(double t, const Observation<T>& obs, const T* z, const T* u,
                                   T* a, T* theta_bar, T* u_bar) {
  // y = output(z); y_bar = d(sum over observed lanes of loss)/dy; a += y_bar^T dy/dz.
  model_.output(t, z, problem_.theta, u, y_.data(), scratch_);
  for (int l = 0; l < model_.lanes; ++l)
    lane_weight_[static_cast<size_t>(l)] = has_lane(obs.lanes & obs.loss_lanes, l) ? T{1} : T{0};
  tile::zero(ybar_.size(), ybar_.data());
  if (obs.output_bar) {
    // A given output cotangent (problem.h): y_bar on the observed lanes, 0 elsewhere.
    const size_t L = static_cast<size_t>(model_.lanes);
    for (size_t i = 0; i < ybar_.size(); ++i)
      ybar_[i] = obs.output_bar[i] * lane_weight_[i % L];
  } else {
    model_.loss_vjp(y_.data(), obs.target, lane_weight_.data(), ybar_.data(), scratch_);
  }
  model_.output_vjp(t, z, problem_.theta, u, ybar_.data(), a, theta_bar, u_bar, scratch_);
}

template <class T>
void EventBackprop<T>::apply(size_t e, const T* z_pre, T* a, T* theta_bar,
                             const InputCotangentFn<T>* sink) {
  const TimelineEvent& ev = timeline_.events[e];
  if (ev.observation < 0) return; // knots and series ends: identity
  const Observation<T>& obs = problem_.observations[static_cast<size_t>(ev.observation)];
  const bool seeded = obs.target || obs.output_bar; // a loss or an output cotangent here
  if (!seeded && !obs.jump) return;
  const double t = ev.t;
  const double lo = e > 0 ? timeline_.events[e - 1].t : timeline_.t0;
  const InputRequest request{t, lo, t};
  const T* u = nullptr;
  if (model_.inputs) {
    problem_.input(request, u_.data());
    u = u_.data();
  }
  const bool want_u = model_.inputs && sink && *sink;
  T* ubar = want_u ? ubar_.data() : nullptr;
  if (want_u) tile::zero(ubar_.size(), ubar);
  const LaneMask mask = obs.lanes & all_lanes(model_.lanes);
  const bool after = obs.jump && model_.model.observe_after_jump;
  if (obs.jump && seeded && after) {
    // The output reads the post-jump state: recompute it (masked like the forward pass).
    model_.jump(t, z_pre, problem_.theta, u, z_post_.data(), scratch_);
    tile::copy_lanes(model_.n, model_.lanes, ~mask & all_lanes(model_.lanes), z_pre,
                     z_post_.data());
    loss_vjp_at(t, obs, z_post_.data(), u, a, theta_bar, ubar);
  }
  if (obs.jump) {
    tile::copy(nl_, a, a_in_.data());
    tile::zero_lanes(model_.n, model_.lanes, ~mask, a_in_.data());
    tile::zero(nl_, a_out_.data());
    model_.jump_vjp(t, z_pre, problem_.theta, u, a_in_.data(), a_out_.data(), theta_bar, ubar,
                    scratch_);
    tile::copy_lanes(model_.n, model_.lanes, ~mask & all_lanes(model_.lanes), a, a_out_.data());
    tile::copy(nl_, a_out_.data(), a);
  }
  if (seeded && !after) loss_vjp_at(t, obs, z_pre, u, a, theta_bar, ubar);
  if (want_u) (*sink)(request, ubar);
}

template <class T>
StepBackprop<T>::StepBackprop(const ModelView<T>& model, RkStepper<T>& stepper, MemoryMeter* meter)
    : model_(model), stepper_(stepper), nl_(model.state_size()) {
  a_in_ = make_buffer<T>(nl_, meter);
  a_out_ = make_buffer<T>(nl_, meter);
  stepper_.enable_vjp();
}

template <class T>
void StepBackprop<T>::apply(const typename Integrator<T>::Item& item, const T* z0, Buffer<T>& a,
                            T* theta_bar, const InputCotangentFn<T>* sink, SolveStats& stats,
                            const T* stage_inputs) {
  const LaneMask frozen = ~item.active & all_lanes(model_.lanes);
  const T* a_in = a.data();
  if (frozen) {
    tile::copy(nl_, a.data(), a_in_.data());
    tile::zero_lanes(model_.n, model_.lanes, frozen, a_in_.data());
    a_in = a_in_.data();
  }
  stepper_.step_vjp(item.t, item.h, item.t1, z0, a_in, a_out_.data(), theta_bar, sink, stats,
                    stage_inputs);
  if (frozen) tile::copy_lanes(model_.n, model_.lanes, frozen, a.data(), a_out_.data());
  a.swap(a_out_);
}

template struct GradientSession<float>;
template struct GradientSession<double>;
template class EventBackprop<float>;
template class EventBackprop<double>;
template class StepBackprop<float>;
template class StepBackprop<double>;

} // namespace plastic::rt
