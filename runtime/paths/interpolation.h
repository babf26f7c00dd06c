// Builders of control paths from observations: the interpolation schemes of
// torchcde (Kidger et al.), which neural CDE code — and paper 000, whose CDE
// fast weight programmers use natural cubic splines "as in Kidger et al." —
// relies on. Each builder takes observation times t_0 < ... < t_{n-1}
// (n >= 2) and values [n][c] row-major, NaN marking a missing value, and
// returns a CubicPath. Channels are independent: each has its own missing
// values and is filled and interpolated on its own.
//
// * natural_cubic_path — torchcde `natural_cubic_coeffs` (interpolation_cubic
//   .py). Leading/trailing NaN runs are filled with the first/last observation
//   (missing.h `fill_ends`); the natural spline (zero second derivative at
//   both ends) is then fitted through the observed knots ONLY, so an interior
//   NaN is not a knot: on its intervals the path is the spline piece of the
//   surrounding observed knots, re-centred. (torchcde does not linearly
//   interpolate interior NaN for splines; it does so only for linear and
//   Hermite paths.) A never-observed channel is the zero path.
// * hermite_path — torchcde `hermite_cubic_coefficients_with_backward_
//   differences`: after linear NaN filling, interval k is the cubic Hermite
//   interpolant with slope m_{k-1} at t_k and m_k at t_{k+1}, where m_k is the
//   secant slope of interval k (m_{-1} := m_0). C¹, and causal: the path on
//   [t_k, t_{k+1}] uses no observation after t_{k+1}. It reproduces linear
//   data exactly; it does not reproduce quadratics (the knot slopes are
//   backward secants, not derivatives).
// * linear_path — torchcde `linear_interpolation_coeffs(x, t)` then
//   `LinearInterpolation`: linear NaN filling, piecewise-linear path.
// * rectilinear_path — torchcde `linear_interpolation_coeffs(x,
//   rectilinear=time_channel)`: time must be a channel of the data. Values are
//   forward-filled, then each observation step becomes two linear pieces:
//   first the time channel moves from τ_k to τ_{k+1} with the features held at
//   x_k, then the features move from x_k to x_{k+1} with time held. The path
//   is parametrised like torchcde's default (t=None): knots s = 0, 1, ...,
//   2n-2, so the ODE runs over s ∈ [0, 2n-2], not over the observation times.
//   It is causal: on [0, 2k+1] only observations up to τ_k influence x.
//
// Observations that cannot make a path (fewer than 2 times, times not
// strictly increasing or not finite, values not times x channels, a missing
// value in rectilinear's time channel) give a PathError.
//
// Beyond [t_0, t_{n-1}] every path extends its first / last interval's
// polynomial (torchcde clamps the interval index the same way).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "runtime/paths/cubic_path.h"
#include "runtime/paths/path_error.h"

namespace plastic::rt {

/// Interpolation schemes for `path[c] <scheme>` inputs.
enum class Interpolation { natural_cubic, hermite, linear, rectilinear };

/// DSL spelling: "cubic", "hermite", "linear", "rectilinear"; nullopt if unknown.
std::optional<Interpolation> parse_interpolation(std::string_view name);
/// Inverse of parse_interpolation.
std::string_view interpolation_name(Interpolation scheme);

/// Natural cubic spline through the observations (torchcde semantics).
Result<CubicPath, PathError> natural_cubic_path(std::span<const double> times,
                                                std::span<const double> values, int channels);

/// Cubic Hermite spline with backward-difference slopes (torchcde semantics).
Result<CubicPath, PathError> hermite_path(std::span<const double> times,
                                          std::span<const double> values, int channels);

/// Piecewise-linear interpolation (torchcde semantics).
Result<CubicPath, PathError> linear_path(std::span<const double> times,
                                         std::span<const double> values, int channels);

/// Rectilinear interpolation (torchcde semantics, see file comment). If
/// `time_channel` >= 0 it names the channel of `values` holding time (no NaN
/// allowed there) and `times` is only validated; if it is -1, `times` is
/// prepended to the data as channel 0, so the path has channels + 1
/// channels. Knots are 0, 1, ..., 2n-2. A `time_channel` outside
/// [-1, channels) is an InternalError.
Result<CubicPath, PathError> rectilinear_path(std::span<const double> times,
                                              std::span<const double> values, int channels,
                                              int time_channel = -1);

/// Dispatch on the scheme; rectilinear prepends time as channel 0.
Result<CubicPath, PathError> make_path(Interpolation scheme, std::span<const double> times,
                                       std::span<const double> values, int channels);

} // namespace plastic::rt
