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

/// out = y0 + sum_j h w[j] k[j] over j < upto with w[j] != 0, where stage j
/// is k + j * k_stride: an RK stage state or solution. One pass over the
/// data per three terms (a copy and then one axpy per term read and wrote
/// `out` once per term: these are the largest loops of a step outside the
/// kernels).
template <class T>
inline void combine(size_t count, const T* y0, const T* k, size_t k_stride, const double* w,
                    int upto, double h, T* out) {
  const T* src[3];
  T c[3];
  int n = 0;
  const T* base = y0;
  auto flush = [&]() {
    switch (n) {
    case 0:
      if (base != out) std::copy(base, base + count, out);
      break;
    case 1:
      for (size_t i = 0; i < count; ++i)
        out[i] = base[i] + c[0] * src[0][i];
      break;
    case 2:
      for (size_t i = 0; i < count; ++i)
        out[i] = base[i] + c[0] * src[0][i] + c[1] * src[1][i];
      break;
    default:
      for (size_t i = 0; i < count; ++i)
        out[i] = base[i] + c[0] * src[0][i] + c[1] * src[1][i] + c[2] * src[2][i];
      break;
    }
    base = out;
    n = 0;
  };
  for (int j = 0; j < upto; ++j) {
    if (w[j] == 0.0) continue;
    src[n] = k + static_cast<size_t>(j) * k_stride;
    c[n] = static_cast<T>(h * w[j]);
    if (++n == 3) flush();
  }
  if (n > 0 || base == y0) flush(); // the rest, or the copy when no term was flushed
}

/// dst[i, l] = src[i, l] for the lanes in `mask` (n elements per lane).
template <class T>
inline void copy_lanes(int64_t n, int lanes, LaneMask mask, const T* src, T* dst) {
  if (mask == 0) return; // the common case: every lane still active
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
/// otherwise hide it). Out of line (tile_ops.cpp): it runs over the whole
/// state after every attempted adaptive step.
void rms_error_norm(int64_t n, int lanes, LaneMask mask, const float* err, const float* z0,
                    const float* z1, double rtol, double atol, LaneMax& out);
void rms_error_norm(int64_t n, int lanes, LaneMask mask, const double* err, const double* z0,
                    const double* z1, double rtol, double atol, LaneMax& out);

/// Hairer's RMS norm of a shared (not lane-interleaved) vector, e.g. the
/// parameter cotangent of the adjoint: err / (atol + rtol max(|x0|, |x1|)).
template <class T>
inline double rms_error_shared(size_t count, const T* err, const T* x0, const T* x1, double rtol,
                               double atol, size_t mean_over = 0) {
  // mean_over > count: the other elements have zero error (the adjoint's
  // parameter cotangent outside the field's span of theta).
  if (mean_over < count) mean_over = count;
  if (mean_over == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const double scale = atol + rtol * std::max(std::abs(static_cast<double>(x0[i])),
                                                std::abs(static_cast<double>(x1[i])));
    const double r = static_cast<double>(err[i]) / scale;
    sum += r * r;
  }
  const double v = std::sqrt(sum / static_cast<double>(mean_over));
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
