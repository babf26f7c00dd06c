// A piecewise-cubic control path X : [t_0, t_{n-1}] → R^c, the common form of
// every interpolation scheme Plastic offers (natural cubic spline, Hermite
// with backward differences, linear, rectilinear; see interpolation.h).
//
// On interval k, with s = t - t_k,
//     x(t)  = a + b s + c s² + d s³,     x'(t) = b + 2c s + 3d s²,
// channel by channel. Linear schemes simply have c = d = 0: one storage
// layout and one evaluation loop serve all of them, and the compiled
// kernels never need to know which scheme built the path.
//
// Storage is one contiguous array per series — the n knots, then for each
// interval its 4·c coefficients [a_0..a_{c-1}, b_0.., c_0.., d_0..] — so an
// evaluation touches one knot pair and one cache-friendly block. The path is
// built once per series ("coefficients computed once") and is immutable.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/paths/locate.h"

namespace plastic::rt {

/// An immutable piecewise-cubic path with `channels` independent channels.
/// Const member functions are safe to call from several threads at once.
class CubicPath {
public:
  /// An empty path (no knots): a placeholder to assign to, not to evaluate.
  CubicPath() = default;

  /// Takes n >= 2 strictly increasing knots and (n-1)·4·channels
  /// coefficients laid out per interval as [a(c), b(c), c(c), d(c)], with
  /// the local variable s = t - knots[k]. The builders of interpolation.h
  /// check observations first; malformed input here is an InternalError.
  CubicPath(std::span<const double> knots, std::span<const double> coeffs, int channels);

  /// Number of channels c.
  int channels() const { return channels_; }
  /// Number of intervals, n - 1.
  int intervals() const { return intervals_; }
  /// The knots t_0 < ... < t_{n-1}.
  std::span<const double> knots() const {
    return {data_.data(), static_cast<std::size_t>(intervals_ + 1)};
  }
  /// First and last knot: the interval on which the data define the path.
  double t_begin() const { return data_.front(); }
  double t_end() const { return data_[static_cast<std::size_t>(intervals_)]; }

  /// The 4·c coefficients of interval k: [a(c), b(c), c(c), d(c)].
  std::span<const double> interval_coeffs(int k) const {
    return {coeff_block(k), static_cast<std::size_t>(4 * channels_)};
  }

  /// Interval owning time t (see locate.h for knots, ends and hints).
  int locate(double t, Side side = Side::left, int hint = -1) const {
    return locate_interval(knots(), t, side, hint);
  }

  /// Writes x(t) (or x'(t)) of every channel i to out[i * stride]. The
  /// stride lets a caller write one lane of a lane-interleaved buffer
  /// directly. If `hint` is non-null it is read as the interval of a
  /// previous query and updated, making monotone sweeps O(1).
  template <class T>
  void evaluate(double t, Quantity q, T* out, std::ptrdiff_t stride = 1, Side side = Side::left,
                int* hint = nullptr) const;

  /// x(t) into value[i * stride] and x'(t) into derivative[i * stride] in
  /// one pass: one interval lookup and one read of its coefficients, the
  /// same numbers as two evaluate() calls (a CDE that reads x and dx/dt at
  /// every stage node spent a tenth of its adjoint step in this lookup and
  /// these loads).
  template <class T>
  void evaluate_both(double t, T* value, T* derivative, std::ptrdiff_t stride = 1,
                     Side side = Side::left, int* hint = nullptr) const;

  /// x(t) into out[i * stride].
  template <class T>
  void value(double t, T* out, std::ptrdiff_t stride = 1, Side side = Side::left,
             int* hint = nullptr) const {
    evaluate(t, Quantity::value, out, stride, side, hint);
  }
  /// x'(t) into out[i * stride].
  template <class T>
  void derivative(double t, T* out, std::ptrdiff_t stride = 1, Side side = Side::left,
                  int* hint = nullptr) const {
    evaluate(t, Quantity::derivative, out, stride, side, hint);
  }

  /// Convenience scalar evaluations of one channel (tests, debugging).
  double value(double t, int channel, Side side = Side::left) const;
  double derivative(double t, int channel, Side side = Side::left) const;

private:
  /// locate() that keeps `hint` and prefetches the next interval on a move.
  int locate_sweeping(double t, Side side, int* hint) const;

  // x and x' of one channel from its coefficients a[0], a[c], a[2c], a[3c]
  // at s: the one definition every evaluation uses, so they agree bit for bit.
  static double value_at(const double* a, int c, double s) {
    return a[0] + s * (a[c] + s * (a[2 * c] + s * a[3 * c]));
  }
  static double slope_at(const double* a, int c, double s) {
    return a[c] + s * (2.0 * a[2 * c] + 3.0 * s * a[3 * c]);
  }

  const double* coeff_block(int k) const {
    return data_.data() + (intervals_ + 1) + static_cast<std::ptrdiff_t>(k) * 4 * channels_;
  }

  int channels_ = 0;
  int intervals_ = 0;
  std::vector<double> data_; // knots, then per-interval coefficient blocks
};

inline int CubicPath::locate_sweeping(double t, Side side, int* hint) const {
  const int previous = hint ? *hint : -1;
  const int k = locate(t, side, previous);
  if (hint) {
    *hint = k;
    // A sweep that moved to a new interval will soon need the one after it
    // (before it, sweeping backwards). A tile's lanes read many series at
    // once, each from its own block, which hardware prefetchers do not
    // anticipate: the coefficient loads were most of this function's time.
    if (previous >= 0 && k != previous) {
      const int next = k + (k > previous ? 1 : -1);
      if (next >= 0 && next < intervals_) {
        const char* block = reinterpret_cast<const char*>(coeff_block(next));
        const std::size_t bytes = sizeof(double) * 4 * static_cast<std::size_t>(channels_);
        for (std::size_t off = 0; off < bytes; off += 64)
          __builtin_prefetch(block + off);
      }
    }
  }
  return k;
}

template <class T>
void CubicPath::evaluate(double t, Quantity q, T* out, std::ptrdiff_t stride, Side side,
                         int* hint) const {
  const int k = locate_sweeping(t, side, hint);
  const double s = t - data_[static_cast<std::size_t>(k)];
  const int c = channels_;
  const double* a = coeff_block(k);
  if (q == Quantity::value) {
    for (int i = 0; i < c; ++i)
      out[i * stride] = static_cast<T>(value_at(a + i, c, s));
  } else {
    for (int i = 0; i < c; ++i)
      out[i * stride] = static_cast<T>(slope_at(a + i, c, s));
  }
}

template <class T>
void CubicPath::evaluate_both(double t, T* value, T* derivative, std::ptrdiff_t stride, Side side,
                              int* hint) const {
  const int k = locate_sweeping(t, side, hint);
  const double s = t - data_[static_cast<std::size_t>(k)];
  const int c = channels_;
  const double* a = coeff_block(k);
  for (int i = 0; i < c; ++i) {
    value[i * stride] = static_cast<T>(value_at(a + i, c, s));
    derivative[i * stride] = static_cast<T>(slope_at(a + i, c, s));
  }
}

} // namespace plastic::rt
