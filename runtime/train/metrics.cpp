// Metrics (definitions in metrics.h).
#include "runtime/train/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

namespace plastic::rt {

namespace {
TrainError size_error(const char* metric, size_t a, size_t b) {
  return invalid_argument_error(fmt::format("{}: {} predictions but {} labels", metric, a, b));
}
TrainError empty_error(const char* metric) {
  return TrainError{
      TrainErrorKind::Undefined, {}, fmt::format("{} of an empty set is undefined", metric), {}};
}
} // namespace

Result<double, TrainError> accuracy(std::span<const int64_t> predicted,
                                    std::span<const int64_t> labels) {
  if (predicted.size() != labels.size())
    return size_error("accuracy", predicted.size(), labels.size());
  if (labels.empty()) return empty_error("accuracy");
  size_t hits = 0;
  for (size_t i = 0; i < labels.size(); ++i)
    hits += predicted[i] == labels[i];
  return static_cast<double>(hits) / static_cast<double>(labels.size());
}

template <class T>
Result<double, TrainError> accuracy_from_logits(std::span<const T> logits, int64_t classes,
                                                std::span<const int64_t> labels) {
  if (classes <= 0 || logits.size() != labels.size() * static_cast<size_t>(classes))
    return invalid_argument_error(
        fmt::format("accuracy: {} logits do not form {} rows of {} classes", logits.size(),
                    labels.size(), classes));
  if (labels.empty()) return empty_error("accuracy");
  size_t hits = 0;
  for (size_t r = 0; r < labels.size(); ++r) {
    const T* row = logits.data() + r * classes;
    // std::max_element returns the first maximum, as torch.argmax does.
    const int64_t arg = std::max_element(row, row + classes) - row;
    hits += arg == labels[r];
  }
  return static_cast<double>(hits) / static_cast<double>(labels.size());
}

template <class T>
Result<double, TrainError> binary_accuracy(std::span<const T> scores,
                                           std::span<const int64_t> labels, double threshold) {
  if (scores.size() != labels.size())
    return size_error("binary accuracy", scores.size(), labels.size());
  if (labels.empty()) return empty_error("binary accuracy");
  size_t hits = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != 0 && labels[i] != 1)
      return invalid_argument_error(
          fmt::format("binary accuracy: label {} at {} is not 0 or 1", labels[i], i));
    hits += (static_cast<double>(scores[i]) > threshold) == (labels[i] == 1);
  }
  return static_cast<double>(hits) / static_cast<double>(labels.size());
}

template <class T>
Result<double, TrainError> auroc(std::span<const T> scores, std::span<const int64_t> labels) {
  if (scores.size() != labels.size()) return size_error("AUROC", scores.size(), labels.size());
  int64_t positives = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != 0 && labels[i] != 1)
      return invalid_argument_error(
          fmt::format("AUROC: label {} at {} is not 0 or 1", labels[i], i));
    if (std::isnan(scores[i]))
      return invalid_argument_error(fmt::format("AUROC: score at {} is NaN", i));
    positives += labels[i];
  }
  const int64_t negatives = static_cast<int64_t>(labels.size()) - positives;
  if (positives == 0 || negatives == 0)
    return TrainError{
        TrainErrorKind::Undefined,
        {},
        fmt::format("AUROC is undefined: all {} labels are {}", labels.size(), positives ? 1 : 0),
        "the validation set needs both classes; use a stratified split"};
  // Mann–Whitney: rank all scores (ties share their average rank), sum the
  // positives' ranks, subtract the smallest possible sum. Ranks are kept
  // doubled so tied averages stay integers and the sum is exact.
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  long double twice_rank_sum = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]])
      ++j;
    // Ranks i+1 .. j (1-based) share the average (i+1+j)/2; doubled: i+1+j.
    const long double twice_avg = static_cast<long double>(i + 1 + j);
    for (size_t k = i; k < j; ++k)
      if (labels[order[k]] == 1) twice_rank_sum += twice_avg;
    i = j;
  }
  const long double p = positives, n = negatives;
  const long double u = twice_rank_sum / 2 - p * (p + 1) / 2;
  return static_cast<double>(u / (p * n));
}

template <class T>
Result<double, TrainError> mse(std::span<const T> predicted, std::span<const T> target) {
  if (predicted.size() != target.size()) return size_error("MSE", predicted.size(), target.size());
  if (target.empty()) return empty_error("MSE");
  double sum = 0;
  for (size_t i = 0; i < target.size(); ++i) {
    const double d = static_cast<double>(predicted[i]) - static_cast<double>(target[i]);
    sum += d * d;
  }
  return sum / static_cast<double>(target.size());
}

template <class T>
Result<double, TrainError> cross_entropy(std::span<const T> logits, int64_t classes,
                                         std::span<const int64_t> labels) {
  if (classes <= 0 || logits.size() != labels.size() * static_cast<size_t>(classes))
    return invalid_argument_error(
        fmt::format("cross-entropy: {} logits do not form {} rows of {} classes", logits.size(),
                    labels.size(), classes));
  if (labels.empty()) return empty_error("cross-entropy");
  double total = 0;
  for (size_t r = 0; r < labels.size(); ++r) {
    if (labels[r] < 0 || labels[r] >= classes)
      return invalid_argument_error(fmt::format(
          "cross-entropy: label {} in row {} is outside [0, {})", labels[r], r, classes));
    const T* row = logits.data() + r * classes;
    const double m = static_cast<double>(*std::max_element(row, row + classes));
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(static_cast<double>(row[c]) - m);
    total += m + std::log(sum) - static_cast<double>(row[labels[r]]);
  }
  return total / static_cast<double>(labels.size());
}

template <class T>
Result<double, TrainError> bce_with_logits(std::span<const T> logits, std::span<const T> targets) {
  if (logits.size() != targets.size()) return size_error("BCE", logits.size(), targets.size());
  if (targets.empty()) return empty_error("BCE");
  double total = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    const double x = static_cast<double>(logits[i]), y = static_cast<double>(targets[i]);
    if (!(y >= 0 && y <= 1))
      return invalid_argument_error(fmt::format("BCE: target {} at {} is outside [0, 1]", y, i));
    total += std::max(x, 0.0) - x * y + std::log1p(std::exp(-std::fabs(x)));
  }
  return total / static_cast<double>(targets.size());
}

#define PLASTIC_METRICS_INSTANTIATE(T)                                                             \
  template Result<double, TrainError> accuracy_from_logits<T>(std::span<const T>, int64_t,         \
                                                              std::span<const int64_t>);           \
  template Result<double, TrainError> binary_accuracy<T>(std::span<const T>,                       \
                                                         std::span<const int64_t>, double);        \
  template Result<double, TrainError> auroc<T>(std::span<const T>, std::span<const int64_t>);      \
  template Result<double, TrainError> mse<T>(std::span<const T>, std::span<const T>);              \
  template Result<double, TrainError> cross_entropy<T>(std::span<const T>, int64_t,                \
                                                       std::span<const int64_t>);                  \
  template Result<double, TrainError> bce_with_logits<T>(std::span<const T>, std::span<const T>);
PLASTIC_METRICS_INSTANTIATE(float)
PLASTIC_METRICS_INSTANTIATE(double)
#undef PLASTIC_METRICS_INSTANTIATE

} // namespace plastic::rt
