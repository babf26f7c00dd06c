// Small loops over lane-interleaved tiles (element i of lane l at [i*L + l]).
//
// The runtime's own arithmetic between kernel calls: stage combinations,
// per-lane finiteness checks, freezing inactive lanes, per-lane RMS norms.
// All are O(n*L) and allocation-free; the compiler vectorises the plain
// loops, and the check that runs over every state after every step lives
// in tile_ops.cpp with versions for wider vectors.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "runtime/solvers/problem.h"

namespace plastic::rt::tile {

/// y += alpha * x over `count` elements.
template <class T> inline void axpy(size_t count, double alpha, const T* x, T* y) {
  const T a = static_cast<T>(alpha);
  for (size_t i = 0; i < count; ++i)
    y[i] += a * x[i];
}

template <class T> inline void copy(size_t count, const T* x, T* y) {
  std::copy(x, x + count, y);
}

template <class T> inline void zero(size_t count, T* y) {
  std::fill(y, y + count, T{0});
}

/// dst[i, l] = src[i, l] for the lanes in `mask` (n elements per lane).
template <class T>
inline void copy_lanes(int64_t n, int lanes, LaneMask mask, const T* src, T* dst) {
  if (mask == 0) return;  // the common case: every lane still active
  for (int64_t i = 0; i < n; ++i)
    for (int l = 0; l < lanes; ++l)
      if (has_lane(mask, l)) dst[i * lanes + l] = src[i * lanes + l];
}

/// x[i, l] = 0 for the lanes in `mask`.
template <class T> inline void zero_lanes(int64_t n, int lanes, LaneMask mask, T* x) {
  for (int64_t i = 0; i < n; ++i)
    for (int l = 0; l < lanes; ++l)
      if (has_lane(mask, l)) x[i * lanes + l] = T{0};
}

/// True when any of x[0..count) is inf or NaN (tile_ops.cpp: one vectorised
/// pass, in the machine's widest vectors).
bool any_nonfinite(size_t count, const float* x);
bool any_nonfinite(size_t count, const double* x);

/// First lane in `mask` holding a non-finite value, or -1.
template <class T>
inline int first_nonfinite_lane(int64_t n, int lanes, LaneMask mask, const T* x) {
  // Fast path, run after every step over the whole tile; only a tile that
  // fails it is searched lane by lane.
  if (!any_nonfinite(static_cast<size_t>(n * lanes), x)) return -1;
  for (int64_t i = 0; i < n; ++i)
    for (int l = 0; l < lanes; ++l)
      if (has_lane(mask, l) && !std::isfinite(x[i * lanes + l])) return l;
  return -1;
}

/// True when every element (all lanes) is finite.
template <class T> inline bool all_finite(size_t count, const T* x) {
  for (size_t i = 0; i < count; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

/// The largest per-lane norm over a tile and the lane that attains it.
struct LaneMax {
  double value = 0;
  int lane = -1;
  void take(double v, int l) {
    // NaN compares false: treat it as infinitely large so it is never hidden.
    if (std::isnan(v)) v = INFINITY;
    if (lane < 0 || v > value) {
      value = v;
      lane = l;
    }
  }
};

/// Hairer's RMS error norm per lane, max over the lanes in `mask`:
///   sqrt(1/n sum_i (err_i / (atol + rtol max(|z0_i|, |z1_i|)))^2).
/// A non-finite z1 makes the lane's norm infinite (a scale of inf would
/// otherwise hide it).
template <class T>
inline void rms_error_norm(int64_t n, int lanes, LaneMask mask, const T* err, const T* z0,
                           const T* z1, double rtol, double atol, LaneMax& out) {
  for (int l = 0; l < lanes; ++l) {
    if (!has_lane(mask, l)) continue;
    double sum = 0;
    bool finite = true;
    for (int64_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(i * lanes + l);
      const double a = z0[k], b = z1[k];
      if (!std::isfinite(b)) finite = false;
      const double scale = atol + rtol * std::max(std::abs(a), std::abs(b));
      const double r = static_cast<double>(err[k]) / scale;
      sum += r * r;
    }
    out.take(finite ? std::sqrt(sum / static_cast<double>(n)) : INFINITY, l);
  }
}

/// Hairer's RMS norm of a shared (not lane-interleaved) vector, e.g. the
/// parameter cotangent of the adjoint: err / (atol + rtol max(|x0|, |x1|)).
template <class T>
inline double rms_error_shared(size_t count, const T* err, const T* x0, const T* x1, double rtol,
                               double atol) {
  if (count == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const double scale = atol + rtol * std::max(std::abs(static_cast<double>(x0[i])),
                                                std::abs(static_cast<double>(x1[i])));
    const double r = static_cast<double>(err[i]) / scale;
    sum += r * r;
  }
  const double v = std::sqrt(sum / static_cast<double>(count));
  return std::isnan(v) ? INFINITY : v;
}

/// RMS of x / (atol + rtol |ref|) per lane (Hairer's initial-step norms).
template <class T>
inline double rms_scaled_lane(int64_t n, int lanes, int l, const T* x, const T* ref, double rtol,
                              double atol) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i * lanes + l);
    const double r =
        static_cast<double>(x[k]) / (atol + rtol * std::abs(static_cast<double>(ref[k])));
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(std::max<int64_t>(n, 1)));
}

} // namespace plastic::rt::tile
