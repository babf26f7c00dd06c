// DirectRecord: see direct_record.h. The loops are those gradient_direct()
// always ran; they moved here so that the forward pass can end a call.
#include "runtime/gradients/direct_record.h"

#include <algorithm>

#include "runtime/solvers/tile_ops.h"

namespace plastic::rt {

template <class T>
GradientResult DirectRecord<T>::forward(const TileProblem<T>& problem, const SolverOptions& solver,
                                        const T* z0, T* outputs, double* loss) {
  return guarded([&]() {
    GradientResult r;
    if (walk_) {
      r.status = invalid_argument("DirectRecord::forward called twice on one record");
      return r;
    }
    r.status = session_.open(problem, solver, GradientMethod::Direct, z0);
    if (!r.status) return r;
    const ModelView<T>& view = *session_.view;
    MemoryMeter* meter = &session_.meter;
    const size_t nl = view.state_size();

    solver_ = solver;
    Walk& walk =
        walk_.emplace(view, problem, *session_.timeline, solver_, session_.scratch->data(), meter);
    loss_ = make_buffer<double>(static_cast<size_t>(view.lanes), meter);
    walk.collect(outputs, loss_.data());
    walk.discards_state_on_failure(true);
    walk.defers_nonfinite_check(true); // checked below, once per interval
    ChunkedTape<T>& states = states_.emplace(nl, 16, meter);
    ChunkedTape<typename Walk::Item>& items = items_.emplace(1, 64, meter);
    RkStepper<T>& stepper = walk.stepper();
    ChunkedTape<T>& inputs =
        inputs_.emplace(std::max<size_t>(stepper.stage_inputs_size(), 1), 16, meter);
    ChunkedTape<int64_t>& input_slot = input_slot_.emplace(1, 64, meter);
    const bool tape_inputs = !solver.adaptive() && stepper.keeps_fixed_step_inputs();

    // states[i] is the state before item i: each item steps from its slot
    // into the next one (no copy of the state per item). The last slot
    // holds the final state.
    T* z = states.push();
    tile::copy(nl, z0, z);
    typename Walk::Cursor c = walk.start();
    size_t checked = 0; // items before this one are known to leave finite states
    while (!walk.finished(c)) {
      if (c.at_event) {
        r.status = check_steps(checked);
        if (!r.status) {
          r.forward = walk.stats;
          return r;
        }
      }
      T* next = states.push();
      typename Walk::Item& item = *items.push();
      // A fused fixed step writes its stage inputs straight into the tape.
      T* const inputs_slot = tape_inputs && !c.at_event ? inputs.next_slot() : nullptr;
      stepper.stage_inputs_into(inputs_slot);
      r.status = walk.advance(c, z, next, item);
      if (!r.status) {
        r.forward = walk.stats;
        return r;
      }
      z = next;
      const T* u = item.kind == Walk::ItemKind::Step ? stepper.fused_step_inputs() : nullptr;
      *input_slot.push() = u ? static_cast<int64_t>(inputs.size()) : -1;
      if (u && u == inputs_slot)
        inputs.push();
      else if (u)
        std::copy_n(u, stepper.stage_inputs_size(), inputs.push());
    }
    r.status = check_steps(checked); // steps after the last event, if any
    if (!r.status) {
      r.forward = walk.stats;
      return r;
    }
    r.forward = forward_ = walk.stats;
    r.stored_states = static_cast<int64_t>(items.size());
    if (loss) std::copy(loss_.begin(), loss_.end(), loss);
    r.peak_bytes = meter->peak();
    problem_ = &problem;
    return r;
  });
}

template <class T> Status<SolveFailure> DirectRecord<T>::check_steps(size_t& checked) const {
  // Between two events the active lanes do not change, and a non-finite
  // value stays non-finite under z1 = z0 + h Σ bᵢ kᵢ: if the interval's last
  // state is finite, so is every state before it. Else the tape holds each
  // step's result, so the first non-finite one is found without recomputing.
  const ChunkedTape<T>& states = *states_;
  const ChunkedTape<typename Walk::Item>& items = *items_;
  const ModelView<T>& view = *session_.view;
  const size_t end = items.size();
  const size_t from = checked;
  checked = end;
  if (end == from) return {};
  const auto bad_lane = [&](size_t i) {
    const typename Walk::Item& item = *items[i];
    return item.kind == Walk::ItemKind::Step
               ? tile::first_nonfinite_lane(view.n, view.lanes, item.active, states[i + 1])
               : -1;
  };
  if (bad_lane(end - 1) < 0) return {};
  for (size_t i = from; i < end; ++i)
    if (const int lane = bad_lane(i); lane >= 0)
      return walk_->nonfinite_step_failure(*items[i], lane);
  return {};
}

template <class T> GradientResult DirectRecord<T>::backward(const GradientOutputs<T>& out) {
  return guarded([&]() {
    GradientResult r;
    if (!problem_) {
      r.status = invalid_argument("DirectRecord::backward without a successful forward pass");
      return r;
    }
    r.status = check_outputs(*problem_, out);
    if (!r.ok()) return r;
    const TileProblem<T>& problem = *problem_;
    problem_ = nullptr; // the sweep consumes the record
    const ModelView<T>& view = *session_.view;
    MemoryMeter* meter = &session_.meter;
    const size_t nl = view.state_size();
    Walk& walk = *walk_;
    const ChunkedTape<T>& states = *states_;
    const ChunkedTape<typename Walk::Item>& items = *items_;
    const ChunkedTape<T>& inputs = *inputs_;
    const ChunkedTape<int64_t>& input_slot = *input_slot_;

    // a is the cotangent of the state after the current item.
    EventBackprop<T> events(view, problem, *session_.timeline, session_.scratch->data(), meter);
    StepBackprop<T> steps(view, walk.stepper(), meter);
    Buffer<T> a = make_buffer<T>(nl, meter);
    const InputCotangentFn<T>* sink = out.input_bar ? &out.input_bar : nullptr;
    for (size_t i = items.size(); i-- > 0;) {
      const typename Walk::Item& item = *items[i];
      if (item.kind == Walk::ItemKind::Event)
        events.apply(item.event, states[i], a.data(), out.theta_bar, sink);
      else
        steps.apply(item, states[i], a, out.theta_bar, sink, r.backward,
                    *input_slot[i] >= 0 ? inputs[static_cast<size_t>(*input_slot[i])] : nullptr);
    }
    r.forward = forward_;
    r.backward.accepted_steps = forward_.accepted_steps;
    r.stored_states = static_cast<int64_t>(items.size());
    if (out.z0_bar) tile::copy(nl, a.data(), out.z0_bar);
    r.peak_bytes = meter->peak();
    return r;
  });
}

template class DirectRecord<float>;
template class DirectRecord<double>;

} // namespace plastic::rt
