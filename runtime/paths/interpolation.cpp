// Linear, Hermite and rectilinear path builders (torchcde semantics; see
// interpolation.h). The natural cubic spline lives in natural_cubic.cpp.
#include "runtime/paths/interpolation.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "runtime/paths/missing.h"
#include "runtime/paths/path_input.h"
#include "runtime/support/internal_error.h"

namespace plastic::rt {

std::optional<Interpolation> parse_interpolation(std::string_view name) {
  if (name == "cubic") return Interpolation::natural_cubic;
  if (name == "hermite") return Interpolation::hermite;
  if (name == "linear") return Interpolation::linear;
  if (name == "rectilinear") return Interpolation::rectilinear;
  return std::nullopt;
}

std::string_view interpolation_name(Interpolation scheme) {
  switch (scheme) {
  case Interpolation::natural_cubic:
    return "cubic";
  case Interpolation::hermite:
    return "hermite";
  case Interpolation::linear:
    return "linear";
  case Interpolation::rectilinear:
    return "rectilinear";
  }
  return "?";
}

namespace {

// Index of coefficient `which` (0=a, 1=b, 2=c, 3=d) of channel ch on interval k.
std::size_t coeff_index(int k, int which, int ch, int channels) {
  return (static_cast<std::size_t>(k) * 4 + static_cast<std::size_t>(which)) *
             static_cast<std::size_t>(channels) +
         static_cast<std::size_t>(ch);
}

// Fills one channel's linear pieces from NaN-free knot values.
void linear_coeffs(std::span<const double> knots, std::span<const double> x, int ch, int channels,
                   std::vector<double>& coeffs) {
  for (std::size_t k = 0; k + 1 < knots.size(); ++k) {
    const int kk = static_cast<int>(k);
    coeffs[coeff_index(kk, 0, ch, channels)] = x[k];
    coeffs[coeff_index(kk, 1, ch, channels)] = (x[k + 1] - x[k]) / (knots[k + 1] - knots[k]);
  }
}

} // namespace

Result<CubicPath, PathError> linear_path(std::span<const double> times,
                                         std::span<const double> values, int channels) {
  if (Status<PathError> ok = detail::check_observations(times, values, channels); !ok)
    return ok.error();
  const int intervals = static_cast<int>(times.size()) - 1;
  std::vector<double> coeffs(
      static_cast<std::size_t>(intervals) * 4 * static_cast<std::size_t>(channels), 0.0);
  std::vector<double> column;
  for (int ch = 0; ch < channels; ++ch) {
    detail::read_column(values, channels, ch, column);
    fill_linear(times, column);
    linear_coeffs(times, column, ch, channels, coeffs);
  }
  return CubicPath(times, coeffs, channels);
}

Result<CubicPath, PathError> hermite_path(std::span<const double> times,
                                          std::span<const double> values, int channels) {
  if (Status<PathError> ok = detail::check_observations(times, values, channels); !ok)
    return ok.error();
  const int intervals = static_cast<int>(times.size()) - 1;
  std::vector<double> coeffs(
      static_cast<std::size_t>(intervals) * 4 * static_cast<std::size_t>(channels), 0.0);
  std::vector<double> column;
  for (int ch = 0; ch < channels; ++ch) {
    detail::read_column(values, channels, ch, column);
    fill_linear(times, column); // torchcde builds Hermite coefficients from linear ones
    // Interval k: Hermite cubic with slope b = m_{k-1} at t_k and the secant
    // slope m_k at t_{k+1}. With Δx/h = m_k the usual Hermite coefficients
    // (3Δx/h - 2b - m_k)/h and (b + m_k - 2Δx/h)/h² simplify to the below.
    double prev_slope = 0.0;
    for (int k = 0; k < intervals; ++k) {
      const double h = times[k + 1] - times[k];
      const double slope = (column[k + 1] - column[k]) / h;
      const double b = k == 0 ? slope : prev_slope; // torchcde: "Let x_0 - x_{-1} = x_1 - x_0"
      coeffs[coeff_index(k, 0, ch, channels)] = column[k];
      coeffs[coeff_index(k, 1, ch, channels)] = b;
      coeffs[coeff_index(k, 2, ch, channels)] = 2.0 * (slope - b) / h;
      coeffs[coeff_index(k, 3, ch, channels)] = (b - slope) / (h * h);
      prev_slope = slope;
    }
  }
  return CubicPath(times, coeffs, channels);
}

Result<CubicPath, PathError> rectilinear_path(std::span<const double> times,
                                              std::span<const double> values, int channels,
                                              int time_channel) {
  if (Status<PathError> ok = detail::check_observations(times, values, channels); !ok)
    return ok.error();
  PLASTIC_CHECK(time_channel >= -1 && time_channel < channels,
                "rectilinear time channel {} is not -1 or a channel in [0, {})", time_channel,
                channels);
  const std::size_t n = times.size();
  const int out_channels = time_channel < 0 ? channels + 1 : channels;
  const int time_ch = time_channel < 0 ? 0 : time_channel;
  const int shift = time_channel < 0 ? 1 : 0; // data channel ch lands on ch + shift

  // Knot parameter s = 0, 1, ..., 2n-2, as torchcde with t=None.
  const std::size_t knots_n = 2 * n - 1;
  std::vector<double> knots(knots_n);
  for (std::size_t i = 0; i < knots_n; ++i)
    knots[i] = static_cast<double>(i);

  std::vector<double> coeffs((knots_n - 1) * 4 * static_cast<std::size_t>(out_channels), 0.0);
  std::vector<double> column, rect(knots_n);
  for (int out_ch = 0; out_ch < out_channels; ++out_ch) {
    if (out_ch == time_ch) {
      if (time_channel < 0) {
        column.assign(times.begin(), times.end());
      } else {
        detail::read_column(values, channels, time_channel, column);
        for (std::size_t i = 0; i < n; ++i)
          if (std::isnan(column[i]))
            return path_error(fmt::format(
                "rectilinear interpolation: the time channel {} is missing at observation {}",
                time_channel, i));
      }
      // Time leads: rows (τ_0, τ_1, τ_1, τ_2, τ_2, ...), as torchcde's lag
      // interleaving `data_repeat[..., :-1, time] = data_repeat[..., 1:, time]`.
      for (std::size_t k = 0; k < n; ++k) {
        rect[2 * k] = column[k];
        if (k + 1 < n) rect[2 * k + 1] = column[k + 1];
      }
    } else {
      detail::read_column(values, channels, out_ch - shift, column);
      // torchcde forward-fills, then its linear NaN handling back-fills the
      // leading run with the first observation and zeroes a never-observed
      // channel; fill_forward without a `leading` value does exactly that.
      fill_forward(column);
      // Features lag: rows (x_0, x_0, x_1, x_1, ..., x_{n-1}).
      for (std::size_t k = 0; k < n; ++k) {
        rect[2 * k] = column[k];
        if (k + 1 < n) rect[2 * k + 1] = column[k];
      }
    }
    linear_coeffs(knots, rect, out_ch, out_channels, coeffs);
  }
  return CubicPath(knots, coeffs, out_channels);
}

Result<CubicPath, PathError> make_path(Interpolation scheme, std::span<const double> times,
                                       std::span<const double> values, int channels) {
  switch (scheme) {
  case Interpolation::natural_cubic:
    return natural_cubic_path(times, values, channels);
  case Interpolation::hermite:
    return hermite_path(times, values, channels);
  case Interpolation::linear:
    return linear_path(times, values, channels);
  case Interpolation::rectilinear:
    return rectilinear_path(times, values, channels, -1);
  }
  internal_error(__FILE__, __LINE__,
                 fmt::format("unknown interpolation scheme {}", static_cast<int>(scheme)));
}

} // namespace plastic::rt
