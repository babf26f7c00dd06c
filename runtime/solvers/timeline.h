// The timeline of a tile solve: the times the integrator must land on
// exactly, and what happens there.
//
// Events are the union of observation times, input knots (where the path may
// kink, e.g. interpolation knots or log-signature window ends), the per-lane
// final times and the overall final time, sorted and merged. Steps never
// cross an event, FSAL derivatives are recomputed after every event (the
// input or, after a jump, the state may be discontinuous there), and lanes
// whose series ended are frozen. The fixed-step grid lives here too because
// forward solves, checkpoint replays and the fixed-step adjoint must all
// produce the same step sequence from the same rule.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "runtime/solvers/memory.h"
#include "runtime/solvers/problem.h"

namespace plastic::rt {

struct TimelineEvent {
  double t = 0;
  int observation = -1; ///< index into TileProblem::observations, or -1
  LaneMask ending = 0;  ///< lanes whose series ends here (frozen afterwards)
};

struct Timeline {
  double t0 = 0;
  double t_final = 0; ///< max over lanes of t_end
  int lanes = 1;
  Buffer<double> lane_end;      ///< L final times
  Buffer<TimelineEvent> events; ///< sorted, distinct times in [t0, t_final]; last at t_final

  /// Lanes still integrating on a step that starts at t (t_end > t).
  LaneMask active_after(double t) const {
    LaneMask m = 0;
    for (int l = 0; l < lanes; ++l)
      if (lane_end[static_cast<size_t>(l)] > t) m |= LaneMask{1} << l;
    return m;
  }
};

/// The end of a step of size h from t that is meant to land on `target` when
/// h == target - t. Forward passes and replays share this rule so replayed
/// steps are bit-identical.
inline double step_end(double t, double h, double target) {
  return h == target - t ? target : t + h;
}

/// Grid t0 + j*h of a fixed-step method. Events split grid cells but never
/// shift the grid; grid points within 1e-9 h of an event snap to it.
struct FixedGrid {
  double t0 = 0;
  double h = 0;

  /// Next point after t going forward, but not beyond `limit` (> t).
  double next(double t, double limit) const {
    const double j = std::floor((t - t0) / h + 1e-9) + 1;
    double g = t0 + j * h;
    if (g <= t) g = t0 + (j + 1) * h; // rounding far from t0 (t/h ~ 1e7): never stand still
    return g >= limit - 1e-9 * h ? limit : g;
  }
  /// Next point before t going backward, but not beyond `limit` (< t).
  double prev(double t, double limit) const {
    const double j = std::ceil((t - t0) / h - 1e-9) - 1;
    double g = t0 + j * h;
    if (g >= t) g = t0 + (j - 1) * h;
    return g <= limit + 1e-9 * h ? limit : g;
  }
};

/// Builds and checks the timeline of a tile problem.
template <class T>
Result<Timeline, SolveFailure> build_timeline(const TileProblem<T>& p, int lanes,
                                              MemoryMeter* meter) {
  Timeline tl;
  tl.t0 = p.t0;
  tl.lanes = lanes;
  tl.lane_end = make_buffer<double>(static_cast<size_t>(lanes), meter);
  tl.events = Buffer<TimelineEvent>(MeteredAllocator<TimelineEvent>(meter));
  if (!std::isfinite(p.t0)) return invalid_argument("t0 is not finite");
  if (p.t_end.size() != 1 && p.t_end.size() != static_cast<size_t>(lanes))
    return invalid_argument(
        fmt::format("t_end has {} values; give 1 or one per lane ({})", p.t_end.size(), lanes));
  tl.t_final = p.t0;
  for (int l = 0; l < lanes; ++l) {
    const double te = p.t_end.size() == 1 ? p.t_end[0] : p.t_end[static_cast<size_t>(l)];
    if (!std::isfinite(te) || te < p.t0)
      return invalid_argument(
          fmt::format("lane {} ends at t={} before t0={} (or not finite)", l, te, p.t0),
          "solves run forward in time: give t_end >= t0");
    tl.lane_end[static_cast<size_t>(l)] = te;
    tl.t_final = std::max(tl.t_final, te);
  }
  for (size_t k = 0; k < p.observations.size(); ++k) {
    const double t = p.observations[k].t;
    if (!(t >= p.t0 && t <= tl.t_final) || (k > 0 && !(t > p.observations[k - 1].t)))
      return invalid_argument(
          fmt::format("observation {} at t={} is out of order or outside [{}, {}]", k, t, p.t0,
                      tl.t_final),
          "observation times must be strictly increasing and inside the solve interval");
    tl.events.push_back({t, static_cast<int>(k), 0});
  }
  for (int l = 0; l < lanes; ++l) {
    const double te = tl.lane_end[static_cast<size_t>(l)];
    if (te > p.t0) tl.events.push_back({te, -1, LaneMask{1} << l});
  }
  for (double k : p.knots) {
    if (!std::isfinite(k)) return invalid_argument("a knot time is not finite");
    if (k > p.t0 && k < tl.t_final) tl.events.push_back({k, -1, 0});
  }
  if (tl.t_final > p.t0) tl.events.push_back({tl.t_final, -1, 0});
  std::stable_sort(tl.events.begin(), tl.events.end(),
                   [](const TimelineEvent& a, const TimelineEvent& b) { return a.t < b.t; });
  // Merge events at (numerically) the same time; an observation or a lane end keeps its exact time.
  size_t out = 0;
  for (size_t i = 0; i < tl.events.size(); ++i) {
    const TimelineEvent& e = tl.events[i];
    if (out > 0) {
      TimelineEvent& last = tl.events[out - 1];
      const double close = 1e-13 * std::max({1.0, std::abs(last.t), std::abs(e.t)});
      if (e.t - last.t <= close) {
        if (e.observation >= 0 && last.observation >= 0)
          return invalid_argument(fmt::format("observations {} and {} are at the same time {}",
                                              last.observation, e.observation, e.t));
        if (e.observation >= 0) last.observation = e.observation;
        if (e.observation >= 0 || e.ending) last.t = e.t;
        last.ending |= e.ending;
        continue;
      }
    }
    tl.events[out++] = e;
  }
  tl.events.resize(out);
  // The final event carries the exact t_final.
  if (!tl.events.empty() && tl.t_final > p.t0) tl.events.back().t = tl.t_final;
  // A merged lane end takes the event's time, so "active while t < t_end" agrees with the events.
  for (const TimelineEvent& e : tl.events)
    for (int l = 0; l < lanes; ++l)
      if (has_lane(e.ending, l)) tl.lane_end[static_cast<size_t>(l)] = e.t;
  return tl;
}

} // namespace plastic::rt
