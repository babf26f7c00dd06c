// Natural cubic spline coefficients, following torchcde's
// `natural_cubic_coeffs` (torchcde/interpolation_cubic.py, `_version == 1`):
//
//  1. per channel, a never-observed channel gets zero coefficients (the zero
//     path, "a constant path with derivative zero");
//  2. the leading NaN run is filled with the first observation and the
//     trailing run with the last ("fill forward and backward from the
//     first/last observation made ... the splines instead rapidly stabilise
//     to the first/last value");
//  3. the natural spline is fitted through the remaining observed knots —
//     interior NaN are not knots — by solving the tridiagonal system for the
//     knot derivatives D_i (torchcde's formulation, after
//     mathworld.wolfram.com/CubicSpline.html with non-unit intervals):
//        D_{i-1}/h_{i-1} + 2(1/h_{i-1} + 1/h_i) D_i + D_{i+1}/h_i
//            = 3 (Δx_{i-1}/h_{i-1}² + Δx_i/h_i²),
//     the terms with h_{-1} and h_{m-1} absent, which is exactly x'' = 0 at
//     both ends;
//  4. each observed-knot piece is re-centred onto every original interval it
//     covers, so the path has one polynomial per observation interval.
#include <cmath>
#include <span>
#include <vector>

#include "runtime/paths/interpolation.h"
#include "runtime/paths/missing.h"
#include "runtime/paths/path_input.h"

namespace plastic::rt {

namespace {

// Knot derivatives D of the natural splines through (t_i, x_i) of `cf`
// channels at the same m >= 2 knots, by the Thomas algorithm (no pivoting
// needed: the matrix is diagonally dominant). The matrix depends on the knots
// only, so its elimination (diag, and off / diag) is done once, and the
// channels' right-hand sides are swept channel-inner: their serial
// recurrences overlap instead of waiting on one division after another (the
// channels observed at every data time are solved together this way; a
// channel with gaps alone, cf = 1). Each channel's operations are the same,
// in the same order, however many are solved together. x: the q-th channel's
// values at x[q*m ..]; d: [m][cf], knot-major.
void natural_knot_derivatives(std::span<const double> t, const std::vector<double>& x,
                              std::size_t cf, std::vector<double>& d) {
  const std::size_t m = t.size();
  std::vector<double> inv_h(m - 1), diag(m, 0.0), rhs(m * cf, 0.0);
  for (std::size_t i = 0; i + 1 < m; ++i) {
    inv_h[i] = 1.0 / (t[i + 1] - t[i]);
    diag[i] += 2.0 * inv_h[i];
    diag[i + 1] += 2.0 * inv_h[i];
    for (std::size_t q = 0; q < cf; ++q) {
      const double scaled = 3.0 * (x[q * m + i + 1] - x[q * m + i]) * inv_h[i] * inv_h[i];
      rhs[i * cf + q] += scaled;
      rhs[(i + 1) * cf + q] += scaled;
    }
  }
  for (std::size_t i = 1; i < m; ++i) {
    const double off = inv_h[i - 1];
    const double w = off / diag[i - 1];
    diag[i] -= w * off;
    for (std::size_t q = 0; q < cf; ++q)
      rhs[i * cf + q] -= w * rhs[(i - 1) * cf + q];
  }
  d.assign(m * cf, 0.0);
  for (std::size_t q = 0; q < cf; ++q)
    d[(m - 1) * cf + q] = rhs[(m - 1) * cf + q] / diag[m - 1];
  for (std::size_t i = m - 1; i-- > 0;) {
    const double off = inv_h[i];
    for (std::size_t q = 0; q < cf; ++q)
      d[i * cf + q] = (rhs[i * cf + q] - off * d[(i + 1) * cf + q]) / diag[i];
  }
}

// One interval's coefficients from its piece (knots at t0 < t1 with values
// x0, x1 and derivatives d0, d1), re-centred by s = the interval's start - t0.
void write_piece(double t0, double t1, double x0, double x1, double d0, double d1, double s,
                 std::size_t c, double* out) {
  const double h = t1 - t0;
  const double slope = (x1 - x0) / h;
  const double c2 = (3.0 * slope - 2.0 * d0 - d1) / h;
  const double d3 = (d0 + d1 - 2.0 * slope) / (h * h);
  out[0] = x0 + s * (d0 + s * (c2 + s * d3));
  out[c] = d0 + s * (2.0 * c2 + 3.0 * s * d3);
  out[2 * c] = c2 + 3.0 * s * d3;
  out[3 * c] = d3;
}

} // namespace

Result<CubicPath, PathError> natural_cubic_path(std::span<const double> times,
                                                std::span<const double> values, int channels) {
  if (Status<PathError> ok = detail::check_observations(times, values, channels); !ok)
    return ok.error();
  const std::size_t n = times.size();
  const std::size_t c = static_cast<std::size_t>(channels);
  std::vector<double> coeffs((n - 1) * 4 * c, 0.0);
  std::vector<double> column, tk, xk, dk;
  std::vector<std::size_t> full;   // channels with a value at every time (after fill_ends)
  std::vector<double> full_values; // their columns, one after another

  for (int ch = 0; ch < channels; ++ch) {
    detail::read_column(values, channels, ch, column);
    if (count_observed(column) == 0) continue; // the zero path
    fill_ends(column);
    if (count_observed(column) == static_cast<int>(n)) {
      full.push_back(static_cast<std::size_t>(ch));
      full_values.insert(full_values.end(), column.begin(), column.end());
      continue;
    }
    tk.clear();
    xk.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isnan(column[i])) {
        tk.push_back(times[i]);
        xk.push_back(column[i]);
      }
    }
    // Both ends are observed after fill_ends and n >= 2, so tk has >= 2 knots.
    natural_knot_derivatives(tk, xk, 1, dk);

    std::size_t j = 0; // observed-knot piece covering the current interval
    for (std::size_t k = 0; k + 1 < n; ++k) {
      while (times[k] >= tk[j + 1])
        ++j;
      const double s = times[k] - tk[j]; // 0 unless interval k follows an interior NaN
      write_piece(tk[j], tk[j + 1], xk[j], xk[j + 1], dk[j], dk[j + 1], s, c,
                  coeffs.data() + k * 4 * c + static_cast<std::size_t>(ch));
    }
  }
  if (!full.empty()) {
    // Every data time is a knot: interval k is piece k (s = 0).
    const std::size_t cf = full.size();
    natural_knot_derivatives(times, full_values, cf, dk);
    for (std::size_t k = 0; k + 1 < n; ++k)
      for (std::size_t q = 0; q < cf; ++q)
        write_piece(times[k], times[k + 1], full_values[q * n + k], full_values[q * n + k + 1],
                    dk[k * cf + q], dk[(k + 1) * cf + q], 0.0, c,
                    coeffs.data() + k * 4 * c + full[q]);
  }
  return CubicPath(times, coeffs, channels);
}

} // namespace plastic::rt
