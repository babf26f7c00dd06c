// Gradient clipping (semantics in clip.h).
#include "runtime/train/clip.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace plastic::rt {

template <class T> double grad_norm(std::span<const T> grads, double norm_type) {
  double max_abs = 0;
  bool nan = false;
  for (T g : grads) {
    const double a = std::fabs(static_cast<double>(g));
    if (std::isnan(a)) nan = true;
    max_abs = std::max(max_abs, a);
  }
  if (nan) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(norm_type) || max_abs == 0 || std::isinf(max_abs)) return max_abs;
  // Scale by the largest element so the powers neither overflow nor underflow.
  double sum = 0;
  if (norm_type == 2.0) {
    for (T g : grads) {
      const double x = static_cast<double>(g) / max_abs;
      sum += x * x;
    }
    return max_abs * std::sqrt(sum);
  }
  for (T g : grads)
    sum += std::pow(std::fabs(static_cast<double>(g)) / max_abs, norm_type);
  return max_abs * std::pow(sum, 1.0 / norm_type);
}

template <class T> double clip_grad_norm(std::span<T> grads, double max_norm, double norm_type) {
  const double total = grad_norm(std::span<const T>(grads.data(), grads.size()), norm_type);
  if (!std::isfinite(total)) return total;
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0) {
    const T c = static_cast<T>(coef);
    for (T& g : grads)
      g *= c;
  }
  return total;
}

template <class T> void clip_grad_value(std::span<T> grads, double clip_value) {
  const T hi = static_cast<T>(clip_value), lo = -hi;
  for (T& g : grads)
    if (!std::isnan(g)) g = std::clamp(g, lo, hi);
}

template double grad_norm<float>(std::span<const float>, double);
template double grad_norm<double>(std::span<const double>, double);
template double clip_grad_norm<float>(std::span<float>, double, double);
template double clip_grad_norm<double>(std::span<double>, double, double);
template void clip_grad_value<float>(std::span<float>, double);
template void clip_grad_value<double>(std::span<double>, double);

} // namespace plastic::rt
