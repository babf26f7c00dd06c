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
#include <vector>

#include "runtime/paths/interpolation.h"
#include "runtime/paths/missing.h"
#include "runtime/paths/path_input.h"

namespace plastic::rt {

namespace {

// Knot derivatives D of the natural spline through (t_i, x_i), m >= 2, by the
// Thomas algorithm (no pivoting needed: the matrix is diagonally dominant).
void natural_knot_derivatives(const std::vector<double>& t, const std::vector<double>& x,
                              std::vector<double>& d, std::vector<double>& diag,
                              std::vector<double>& rhs) {
  const std::size_t m = t.size();
  d.assign(m, 0.0);
  diag.assign(m, 0.0);
  rhs.assign(m, 0.0);
  for (std::size_t i = 0; i + 1 < m; ++i) {
    const double inv_h = 1.0 / (t[i + 1] - t[i]);
    const double scaled = 3.0 * (x[i + 1] - x[i]) * inv_h * inv_h;
    diag[i] += 2.0 * inv_h;
    diag[i + 1] += 2.0 * inv_h;
    rhs[i] += scaled;
    rhs[i + 1] += scaled;
  }
  for (std::size_t i = 1; i < m; ++i) {
    const double off = 1.0 / (t[i] - t[i - 1]); // lower[i-1] == upper[i-1]
    const double w = off / diag[i - 1];
    diag[i] -= w * off;
    rhs[i] -= w * rhs[i - 1];
  }
  d[m - 1] = rhs[m - 1] / diag[m - 1];
  for (std::size_t i = m - 1; i-- > 0;) {
    const double off = 1.0 / (t[i + 1] - t[i]);
    d[i] = (rhs[i] - off * d[i + 1]) / diag[i];
  }
}

} // namespace

Result<CubicPath, PathError> natural_cubic_path(std::span<const double> times,
                                                std::span<const double> values, int channels) {
  if (Status<PathError> ok = detail::check_observations(times, values, channels); !ok)
    return ok.error();
  const std::size_t n = times.size();
  const std::size_t c = static_cast<std::size_t>(channels);
  std::vector<double> coeffs((n - 1) * 4 * c, 0.0);
  std::vector<double> column, tk, xk, dk, diag, rhs;

  for (int ch = 0; ch < channels; ++ch) {
    detail::read_column(values, channels, ch, column);
    if (count_observed(column) == 0) continue; // the zero path
    fill_ends(column);
    tk.clear();
    xk.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isnan(column[i])) {
        tk.push_back(times[i]);
        xk.push_back(column[i]);
      }
    }
    // Both ends are observed after fill_ends and n >= 2, so tk has >= 2 knots.
    natural_knot_derivatives(tk, xk, dk, diag, rhs);

    std::size_t j = 0; // observed-knot piece covering the current interval
    for (std::size_t k = 0; k + 1 < n; ++k) {
      while (times[k] >= tk[j + 1])
        ++j;
      const double h = tk[j + 1] - tk[j];
      const double slope = (xk[j + 1] - xk[j]) / h;
      const double a = xk[j];
      const double b = dk[j];
      const double c2 = (3.0 * slope - 2.0 * dk[j] - dk[j + 1]) / h;
      const double d3 = (dk[j] + dk[j + 1] - 2.0 * slope) / (h * h);
      const double s = times[k] - tk[j]; // 0 unless interval k follows an interior NaN
      double* out = coeffs.data() + k * 4 * c + static_cast<std::size_t>(ch);
      out[0] = a + s * (b + s * (c2 + s * d3));
      out[c] = b + s * (2.0 * c2 + 3.0 * s * d3);
      out[2 * c] = c2 + 3.0 * s * d3;
      out[3 * c] = d3;
    }
  }
  return CubicPath(times, coeffs, channels);
}

} // namespace plastic::rt
