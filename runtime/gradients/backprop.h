// Building blocks shared by the gradient methods: the common setup of a
// gradient computation, and the reverse sweep through one event
// (observation loss, jump) or one recorded step, with lane masks.
//
// Masks. A lane that is frozen during a step (its series ended) or not
// observed at an event passes its cotangent through unchanged and adds
// nothing to theta_bar: the cotangent entering the kernel VJP is zeroed on
// those lanes (the VJPs are linear in it) and restored afterwards.
#pragma once

#include <memory>
#include <optional>

#include "runtime/gradients/gradient.h"
#include "runtime/solvers/integrator.h"
#include "runtime/solvers/memory.h"
#include "runtime/solvers/model_view.h"
#include "runtime/solvers/timeline.h"

namespace plastic::rt {

/// The outputs a gradient needs: theta_bar when the model has parameters (a
/// problem without a model is left to check_problem to report).
template <class T>
Status<SolveFailure> check_outputs(const TileProblem<T>& problem, const GradientOutputs<T>& out) {
  if (!out.theta_bar && problem.model && problem.model->n_params > 0)
    return invalid_argument("GradientOutputs::theta_bar is null",
                            "pass a buffer of n_params elements");
  return {};
}

/// Validation, timeline and scratch of one gradient computation; owns the meter.
template <class T> struct GradientSession {
  MemoryMeter meter;
  std::optional<ModelView<T>> view;
  std::optional<Timeline> timeline;
  std::optional<Scratch> scratch;

  /// Checks everything and prepares; `method` selects the kernels required.
  Status<SolveFailure> open(const TileProblem<T>& problem, const SolverOptions& solver,
                            GradientMethod method, const T* z0, const GradientOutputs<T>& out);
  /// The same without the outputs, for a forward pass whose backward comes later.
  Status<SolveFailure> open(const TileProblem<T>& problem, const SolverOptions& solver,
                            GradientMethod method, const T* z0);
};

/// Reverse sweep through events (observation losses and jumps).
template <class T> class EventBackprop {
public:
  EventBackprop(const ModelView<T>& model, const TileProblem<T>& problem, const Timeline& timeline,
                void* scratch, MemoryMeter* meter);

  /// `a`: in, the cotangent of the state just after event e; out, just before it.
  /// z_pre: the state just before the event. Adds to theta_bar; sends input cotangents to sink.
  void apply(size_t e, const T* z_pre, T* a, T* theta_bar, const InputCotangentFn<T>* sink);

private:
  void loss_vjp_at(double t, const Observation<T>& obs, const T* z, const T* u, T* a, T* theta_bar,
                   T* u_bar);

  const ModelView<T>& model_;
  const TileProblem<T>& problem_;
  const Timeline& timeline_;
  void* scratch_;
  size_t nl_;
  Buffer<T> u_, ubar_, z_post_, y_, ybar_, lane_weight_, a_in_, a_out_;
};

/// Reverse sweep through one recorded step, with frozen lanes.
template <class T> class StepBackprop {
public:
  StepBackprop(const ModelView<T>& model, RkStepper<T>& stepper, MemoryMeter* meter);

  /// `a`: in, the cotangent of the state after the step; out, before it. z0: the state before it.
  /// The result is computed into a buffer of this object, which is then
  /// swapped with `a` (no copy of the state per step). `stage_inputs`: the
  /// step's inputs kept from the forward pass (RkStepper::step_vjp), or null.
  void apply(const typename Integrator<T>::Item& item, const T* z0, Buffer<T>& a, T* theta_bar,
             const InputCotangentFn<T>* sink, SolveStats& stats, const T* stage_inputs = nullptr);

private:
  const ModelView<T>& model_;
  RkStepper<T>& stepper_;
  size_t nl_;
  Buffer<T> a_in_, a_out_;
};

/// Runs `body` and converts allocation failures and callback exceptions into a Status.
template <class F> GradientResult guarded(F&& body) noexcept {
  GradientResult r;
  try {
    r = body();
  } catch (const std::bad_alloc&) {
    r.status = internal_failure("out of memory while computing gradients");
  } catch (const std::exception& e) {
    r.status = internal_failure(std::string("exception escaped a callback: ") + e.what());
  } catch (...) {
    r.status = internal_failure("unknown exception escaped a callback");
  }
  return r;
}

extern template struct GradientSession<float>;
extern template struct GradientSession<double>;
extern template class EventBackprop<float>;
extern template class EventBackprop<double>;
extern template class StepBackprop<float>;
extern template class StepBackprop<double>;

} // namespace plastic::rt
