// Direct backpropagation through the solver (discretise-then-optimise):
// store the state before every item of the forward walk, then sweep the
// items backwards through the step and event VJPs. Exact for the computed
// discrete solution; adaptive step sizes are held constant (gradient.h).
// Memory O(N): one state and one item record per accepted step and event.
#include <algorithm>

#include "runtime/gradients/backprop.h"
#include "runtime/gradients/gradient.h"
#include "runtime/solvers/tile_ops.h"

namespace plastic::rt {

template <class T>
GradientResult gradient_direct(const TileProblem<T>& problem, const SolverOptions& solver,
                               const T* z0, const GradientOutputs<T>& out) noexcept {
  return guarded([&]() {
    GradientResult r;
    GradientSession<T> session;
    r.status = session.open(problem, solver, GradientMethod::Direct, z0, out);
    if (!r.status) return r;
    const ModelView<T>& view = *session.view;
    MemoryMeter* meter = &session.meter;
    const size_t nl = view.state_size();
    using Walk = Integrator<T>;

    Walk walk(view, problem, *session.timeline, solver, session.scratch->data(), meter);
    Buffer<double> loss = make_buffer<double>(static_cast<size_t>(view.lanes), meter);
    walk.collect(nullptr, loss.data());
    walk.discards_state_on_failure(true);
    ChunkedTape<T> states(nl, 16, meter);
    ChunkedTape<typename Walk::Item> items(1, 64, meter);
    Buffer<T> z = make_buffer<T>(nl, meter);
    tile::copy(nl, z0, z.data());

    // Forward: the state before each item, then the item.
    typename Walk::Cursor c = walk.start();
    while (!walk.finished(c)) {
      tile::copy(nl, z.data(), states.push());
      typename Walk::Item& item = *items.push();
      r.status = walk.advance(c, z.data(), item);
      if (!r.status) {
        r.forward = walk.stats;
        return r;
      }
    }
    r.forward = walk.stats;
    r.stored_states = static_cast<int64_t>(states.size());

    // Backward: a is the cotangent of the state after the current item.
    EventBackprop<T> events(view, problem, *session.timeline, session.scratch->data(), meter);
    StepBackprop<T> steps(view, walk.stepper(), meter);
    Buffer<T> a = make_buffer<T>(nl, meter);
    const InputCotangentFn<T>* sink = out.input_bar ? &out.input_bar : nullptr;
    for (size_t i = items.size(); i-- > 0;) {
      const typename Walk::Item& item = *items[i];
      if (item.kind == Walk::ItemKind::Event)
        events.apply(item.event, states[i], a.data(), out.theta_bar, sink);
      else
        steps.apply(item, states[i], a, out.theta_bar, sink, r.backward);
    }
    r.backward.accepted_steps = r.forward.accepted_steps;
    if (out.z0_bar) tile::copy(nl, a.data(), out.z0_bar);
    if (out.loss) std::copy(loss.begin(), loss.end(), out.loss);
    r.peak_bytes = meter->peak();
    return r;
  });
}

template GradientResult gradient_direct<float>(const TileProblem<float>&, const SolverOptions&,
                                               const float*,
                                               const GradientOutputs<float>&) noexcept;
template GradientResult gradient_direct<double>(const TileProblem<double>&, const SolverOptions&,
                                                const double*,
                                                const GradientOutputs<double>&) noexcept;

} // namespace plastic::rt
