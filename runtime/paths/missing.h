// Filling missing observations (NaN) in one channel of one series.
//
// Every scheme here follows a reference implementation, so that a model
// trained by Plastic sees the same control path as the published code:
//
// * fill_linear — torchcde, torchcde/interpolation_linear.py,
//   `_linear_interpolation_coeffs_with_missing_values_scalar`: a channel with
//   no observation becomes all zeros; a leading run of NaN takes the first
//   observed value and a trailing run the last one; an interior NaN is
//   linearly interpolated in time between its observed neighbours. Used by
//   linear and cubic-Hermite paths (torchcde's Hermite builder calls
//   `linear_interpolation_coeffs` first).
// * fill_ends — torchcde, torchcde/interpolation_cubic.py,
//   `_natural_cubic_spline_coeffs_with_missing_values_scalar` (the
//   `_version == 1` branch used by `natural_cubic_coeffs`): only the leading
//   and trailing runs are filled (backward from the first, forward from the
//   last observation); interior NaN stay NaN because the spline is fitted
//   through the observed knots only (see interpolation.h).
// * fill_forward — torchcde's misc.forward_fill (rectilinear paths) and the
//   neural RDE code of Morrill et al. (jambo6/neuralRDEs,
//   experiments/utils/messy.py `impute_missing`, method "ffill"): carry the
//   last observation forward. What fills the leading run is a parameter,
//   because the references differ (see the function).
#pragma once

#include <optional>
#include <span>

namespace plastic::rt {

/// Number of non-NaN entries in `column`.
int count_observed(std::span<const double> column);

/// torchcde's linear filling (see file comment). `times` and `column` have
/// the same length >= 1; times strictly increasing.
void fill_linear(std::span<const double> times, std::span<double> column);

/// Fills the leading NaN run with the first observation and the trailing run
/// with the last one; interior NaN are left alone. A column with no
/// observation is left untouched (the caller decides: torchcde makes it 0).
void fill_ends(std::span<double> column);

/// Carries each observation forward over the NaN that follow it. The NaN
/// before the first observation (and a never-observed column entirely) get
/// `leading` if given; otherwise the first observation (a backward fill,
/// torchcde's choice) or 0 for a never-observed column. Pass the dataset's
/// per-channel mean as `leading` to reproduce the neural RDE reference, which
/// fills leading NaN with the channel mean over the whole dataset and then
/// any remaining NaN with 0.
void fill_forward(std::span<double> column, std::optional<double> leading = std::nullopt);

} // namespace plastic::rt
