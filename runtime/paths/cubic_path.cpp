// Construction and scalar evaluation of CubicPath; the hot vector evaluation
// is a template in the header so float and double kernels both inline it.
#include "runtime/paths/cubic_path.h"

#include <cmath>

#include "runtime/support/internal_error.h"

namespace plastic::rt {

CubicPath::CubicPath(std::span<const double> knots, std::span<const double> coeffs, int channels)
    : channels_(channels), intervals_(static_cast<int>(knots.size()) - 1) {
  PLASTIC_CHECK(channels >= 1, "a path needs >= 1 channel, got {}", channels);
  PLASTIC_CHECK(knots.size() >= 2, "a path needs >= 2 knots, got {}", knots.size());
  for (std::size_t i = 0; i < knots.size(); ++i) {
    PLASTIC_CHECK(std::isfinite(knots[i]), "knot {} is not finite ({})", i, knots[i]);
    PLASTIC_CHECK(i == 0 || knots[i] > knots[i - 1],
                  "knots must be strictly increasing: t[{}] = {} follows t[{}] = {}", i, knots[i],
                  i - 1, knots[i - 1]);
  }
  const std::size_t expected =
      static_cast<std::size_t>(intervals_) * 4 * static_cast<std::size_t>(channels);
  PLASTIC_CHECK(coeffs.size() == expected,
                "expected {} coefficients ({} intervals x 4 x {} channels), got {}", expected,
                intervals_, channels, coeffs.size());
  data_.reserve(knots.size() + coeffs.size());
  data_.insert(data_.end(), knots.begin(), knots.end());
  data_.insert(data_.end(), coeffs.begin(), coeffs.end());
}

double CubicPath::value(double t, int channel, Side side) const {
  const int k = locate(t, side);
  const double s = t - data_[static_cast<std::size_t>(k)];
  return value_at(coeff_block(k) + channel, channels_, s);
}

double CubicPath::derivative(double t, int channel, Side side) const {
  const int k = locate(t, side);
  const double s = t - data_[static_cast<std::size_t>(k)];
  return slope_at(coeff_block(k) + channel, channels_, s);
}

} // namespace plastic::rt
