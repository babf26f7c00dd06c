// Signature by Chen's identity over segments, tensor log, and projection to
// signatory's coordinate modes; see logsignature.h.
#include "runtime/logsig/logsignature.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/support/internal_error.h"

namespace plastic::rt {

std::optional<LogSigMode> parse_logsig_mode(std::string_view name) {
  if (name == "words") return LogSigMode::words;
  if (name == "brackets") return LogSigMode::brackets;
  if (name == "expand") return LogSigMode::expand;
  return std::nullopt;
}

Result<LogSignature, PathError> LogSignature::make(int channels, int depth, LogSigMode mode) {
  if (Status<PathError> s = check_tensor_shape(channels, depth); !s) return s.error();
  return LogSignature(channels, depth, mode);
}

LogSignature::LogSignature(int channels, int depth, LogSigMode mode)
    : shape_(channels, depth), basis_(channels, depth), mode_(mode) {
  const std::size_t n = shape_.size();
  sig_.assign(n, 0.0);
  log_.assign(n, 0.0);
  scratch_.assign(2 * n, 0.0);
  delta_.assign(static_cast<std::size_t>(channels), 0.0);
  if (mode != LogSigMode::brackets) return;
  for (std::size_t w = 0; w < basis_.size(); ++w) {
    const int len = basis_.length(w);
    if (len == 1) continue;
    for (const auto& [index, coeff] : expand_bracket(basis_, w)) {
      const std::size_t lo = basis_.find_index(len, index);
      if (lo == basis_.size()) continue; // not a Lyndon word: no coordinate
      PLASTIC_CHECK(lo != w || coeff == 1.0, "P_{} has coefficient {} on its own word",
                    basis_.to_string(w), coeff);
      PLASTIC_CHECK(lo >= w, "P_{} contains the smaller Lyndon word {}", basis_.to_string(w),
                    basis_.to_string(lo));
      if (lo > w) {
        to_brackets_.emplace_back(w, lo, coeff);
      }
    }
  }
}

std::size_t LogSignature::size() const {
  return mode_ == LogSigMode::expand ? shape_.size() : basis_.size();
}

void LogSignature::signature(std::span<const double> points, double* out) {
  const std::size_t d = static_cast<std::size_t>(channels());
  PLASTIC_CHECK(points.size() >= d && points.size() % d == 0,
                "a path in R^{} needs a positive multiple of {} values, got {}", d, d,
                points.size());
  const std::size_t npoints = points.size() / d;
  std::fill(out, out + shape_.size(), 0.0); // the identity 1 + 0
  for (std::size_t p = 0; p + 1 < npoints; ++p) {
    const double* a = points.data() + p * d;
    for (std::size_t j = 0; j < d; ++j)
      delta_[j] = a[d + j] - a[j];
    mul_exp_segment(shape_, out, delta_.data(), scratch_.data());
  }
}

void LogSignature::compute(std::span<const double> points, double* out) {
  signature(points, sig_.data());
  if (mode_ == LogSigMode::expand) {
    tensor_log(shape_, sig_.data(), out, scratch_.data());
    return;
  }
  tensor_log(shape_, sig_.data(), log_.data(), scratch_.data());
  project(log_.data(), out);
}

void LogSignature::project(const double* log_tensor, double* out) const {
  if (mode_ == LogSigMode::expand) {
    std::copy(log_tensor, log_tensor + shape_.size(), out);
    return;
  }
  for (std::size_t w = 0; w < basis_.size(); ++w)
    out[w] = log_tensor[shape_.offset(basis_.length(w)) + basis_.level_index(w)];
  if (mode_ == LogSigMode::words) return;
  // Words coefficients ℓ_u = Σ_{w <= u} c_w A[w][u] with A[u][u] = 1; solve
  // for the bracket coefficients c in increasing w, each c_w being final once
  // all smaller words have been subtracted.
  for (const auto& [w, u, a] : to_brackets_)
    out[u] -= out[w] * a;
}

} // namespace plastic::rt
