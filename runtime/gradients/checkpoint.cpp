// Checkpointed backpropagation: the gradient of direct.cpp with O(N/k + k)
// stored states instead of O(N). The forward walk keeps the state (and the
// walk's cursor) before every k-th item; the backward pass replays each
// segment of k items from its checkpoint, storing its states, then sweeps
// it backwards. Replays take exactly the forward's steps: fixed-step grids
// are recomputed, adaptive step sizes are recorded (one double per step).
// k = 0 picks ceil(sqrt(N)), which minimises N/k + k; for adaptive methods N
// is only known after a counting forward pass, which costs one more solve.
#include <algorithm>
#include <cmath>

#include "runtime/gradients/backprop.h"
#include "runtime/gradients/gradient.h"
#include "runtime/solvers/tile_ops.h"

namespace plastic::rt {

namespace {

/// Items (steps + events) of a fixed-step walk, from the grid alone.
int64_t count_fixed_items(const Timeline& tl, const FixedGrid& grid) {
  int64_t items = 0;
  double t = tl.t0;
  for (const TimelineEvent& e : tl.events) {
    while (t < e.t) {
      const double h = grid.next(t, e.t) - t;
      t = step_end(t, h, e.t);
      ++items;
    }
    ++items;
  }
  return items;
}

} // namespace

template <class T>
GradientResult gradient_checkpoint(const TileProblem<T>& problem, const SolverOptions& solver,
                                   const GradientOptions& options, const T* z0,
                                   const GradientOutputs<T>& out) noexcept {
  return guarded([&]() {
    GradientResult r;
    GradientSession<T> session;
    r.status = session.open(problem, solver, GradientMethod::Checkpoint, z0, out);
    if (!r.status) return r;
    if (options.checkpoint_every < 0) {
      r.status =
          invalid_argument("checkpoint_every must be >= 0", "0 chooses sqrt(number of steps)");
      return r;
    }
    const ModelView<T>& view = *session.view;
    const Timeline& timeline = *session.timeline;
    MemoryMeter* meter = &session.meter;
    const size_t nl = view.state_size();
    using Walk = Integrator<T>;
    Buffer<T> z = make_buffer<T>(nl, meter);

    int64_t k = options.checkpoint_every;
    if (k == 0) {
      int64_t items = 0;
      if (solver.adaptive()) {
        // Count the items with a plain forward solve.
        Walk counter(view, problem, timeline, solver, session.scratch->data(), meter);
        tile::copy(nl, z0, z.data());
        typename Walk::Cursor c = counter.start();
        typename Walk::Item item;
        while (!counter.finished(c)) {
          r.status = counter.advance(c, z.data(), item);
          if (!r.status) return r;
          ++items;
        }
        r.forward += counter.stats;
      } else {
        items = count_fixed_items(timeline, FixedGrid{timeline.t0, solver.step});
      }
      k = std::max<int64_t>(1,
                            static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(items)))));
    }

    // Forward: checkpoint the cursor and state before items 0, k, 2k, ...
    ChunkedTape<double> step_sizes(1, 512, meter);
    ChunkedTape<T> checkpoint_states(nl, 8, meter);
    ChunkedTape<typename Walk::Cursor> checkpoint_cursors(1, 64, meter);
    Buffer<double> loss = make_buffer<double>(static_cast<size_t>(view.lanes), meter);
    int64_t items = 0;
    {
      Walk walk(view, problem, timeline, solver, session.scratch->data(), meter);
      walk.collect(nullptr, loss.data());
      walk.discards_state_on_failure(true);
      if (solver.adaptive()) walk.record_steps(&step_sizes);
      tile::copy(nl, z0, z.data());
      typename Walk::Cursor c = walk.start();
      typename Walk::Item item;
      while (!walk.finished(c)) {
        if (items % k == 0) {
          tile::copy(nl, z.data(), checkpoint_states.push());
          *checkpoint_cursors.push() = c;
        }
        r.status = walk.advance(c, z.data(), item);
        if (!r.status) {
          r.forward += walk.stats;
          return r;
        }
        ++items;
      }
      r.forward += walk.stats;
    }

    // Backward: replay each segment from its checkpoint, then sweep it in reverse.
    Walk replay(view, problem, timeline, solver, session.scratch->data(), meter);
    replay.replaying(true);
    replay.discards_state_on_failure(true);
    if (solver.adaptive()) replay.replay_steps(&step_sizes);
    EventBackprop<T> events(view, problem, timeline, session.scratch->data(), meter);
    StepBackprop<T> steps(view, replay.stepper(), meter);
    const size_t seg_len = static_cast<size_t>(std::min<int64_t>(k, std::max<int64_t>(items, 1)));
    // One slot per item's state before it, plus the state after the last:
    // each replayed item steps from its slot into the next (no copy).
    Buffer<T> seg_states = make_buffer<T>((seg_len + 1) * nl, meter);
    Buffer<typename Walk::Item> seg_items = make_buffer<typename Walk::Item>(seg_len, meter);
    Buffer<T> a = make_buffer<T>(nl, meter);
    const InputCotangentFn<T>* sink = out.input_bar ? &out.input_bar : nullptr;
    r.stored_states = static_cast<int64_t>(checkpoint_states.size() + seg_len);
    for (size_t seg = checkpoint_states.size(); seg-- > 0;) {
      const int64_t first = static_cast<int64_t>(seg) * k;
      const size_t count = static_cast<size_t>(std::min<int64_t>(k, items - first));
      typename Walk::Cursor c = *checkpoint_cursors[seg];
      tile::copy(nl, checkpoint_states[seg], seg_states.data());
      for (size_t j = 0; j < count; ++j) {
        r.status = replay.advance(c, seg_states.data() + j * nl, seg_states.data() + (j + 1) * nl,
                                  seg_items[j]);
        if (!r.status) return r; // cannot happen for a replay of a successful forward pass
      }
      for (size_t j = count; j-- > 0;) {
        const typename Walk::Item& item = seg_items[j];
        const T* z_before = seg_states.data() + j * nl;
        if (item.kind == Walk::ItemKind::Event)
          events.apply(item.event, z_before, a.data(), out.theta_bar, sink);
        else
          steps.apply(item, z_before, a, out.theta_bar, sink, r.backward);
      }
    }
    r.backward += replay.stats; // the recomputation is part of the backward cost
    r.backward.accepted_steps = r.forward.accepted_steps;
    if (out.z0_bar) tile::copy(nl, a.data(), out.z0_bar);
    if (out.loss) std::copy(loss.begin(), loss.end(), out.loss);
    r.peak_bytes = meter->peak();
    return r;
  });
}

template GradientResult gradient_checkpoint<float>(const TileProblem<float>&, const SolverOptions&,
                                                   const GradientOptions&, const float*,
                                                   const GradientOutputs<float>&) noexcept;
template GradientResult gradient_checkpoint<double>(const TileProblem<double>&,
                                                    const SolverOptions&, const GradientOptions&,
                                                    const double*,
                                                    const GradientOutputs<double>&) noexcept;

} // namespace plastic::rt
