// Interval lookup on a sorted knot grid, shared by every piecewise path.
//
// A path built on knots t_0 < ... < t_{n-1} has n-1 intervals. Which interval
// a query time belongs to matters only at the knots themselves, where a
// non-smooth path (linear, rectilinear, the piecewise-constant log-signature
// driver) has two different derivatives. `Side` says which one is wanted:
//
//   Side::left  — interval k owns (t_k, t_{k+1}]: the limit from the left.
//                 This is torchcde's convention (`torch.bucketize(t, knots)
//                 - 1`, right=False), so it is the default everywhere.
//   Side::right — interval k owns [t_k, t_{k+1}): the limit from the right,
//                 e.g. for the first stage of a solver step that starts on a
//                 knot, or the log-ODE's s ∈ [r_i, r_{i+1}) of Morrill et al.
//
// Outside [t_0, t_{n-1}] the index is clamped to the first / last interval,
// so evaluation extends that interval's polynomial (torchcde clamps the same
// way in `_interpret_t`). Lookup is O(1) when the caller passes the interval
// of its previous (monotone, either direction) query as a hint, O(log n)
// otherwise.
#pragma once

#include <algorithm>
#include <span>

namespace plastic::rt {

/// Which one-sided limit to take when a query time falls exactly on a knot.
enum class Side { left, right };

/// What a path evaluation produces: x(t) or its time derivative x'(t).
enum class Quantity { value, derivative };

/// Index k in [0, knots.size()-2] of the interval that owns `t` (see the
/// file comment for the convention at knots and beyond the ends). `hint`
/// is a previous answer or -1; checking it and its two neighbours first
/// makes monotone sweeps, forward or backward, O(1). Requires knots.size() >= 2, strictly
/// increasing.
inline int locate_interval(std::span<const double> knots, double t, Side side = Side::left,
                           int hint = -1) {
  const int last = static_cast<int>(knots.size()) - 2;
  const double* k = knots.data();
  auto owns = [&](int i) {
    const bool after_lo = i == 0 || (side == Side::left ? t > k[i] : t >= k[i]);
    const bool before_hi = i == last || (side == Side::left ? t <= k[i + 1] : t < k[i + 1]);
    return after_lo && before_hi;
  };
  if (hint >= 0 && hint <= last) {
    if (owns(hint)) return hint;
    if (hint < last && owns(hint + 1)) return hint + 1;
    // Reverse sweeps (the backward pass of a gradient) walk down the knots.
    if (hint > 0 && owns(hint - 1)) return hint - 1;
  }
  const double* end = k + knots.size();
  const double* it = side == Side::left ? std::lower_bound(k, end, t) : std::upper_bound(k, end, t);
  const int index = static_cast<int>(it - k) - 1;
  return std::clamp(index, 0, last);
}

} // namespace plastic::rt
