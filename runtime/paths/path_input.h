// Validation and column access for the raw observations every path builder
// (and the log-signature driver) starts from: times [n] and values [n][c],
// row-major. Internal to runtime/paths and runtime/logsig.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "runtime/paths/path_error.h"

namespace plastic::rt::detail {

/// Ok if n = times.size() >= 2, times are finite and strictly increasing,
/// channels >= 1 and values.size() == n·c; otherwise the first violation.
inline Status<PathError> check_observations(std::span<const double> times,
                                            std::span<const double> values, int channels) {
  if (channels < 1) return path_error(fmt::format("a path needs >= 1 channel, got {}", channels));
  if (times.size() < 2)
    return path_error(fmt::format("a path needs >= 2 observation times, got {}", times.size()));
  if (values.size() != times.size() * static_cast<std::size_t>(channels))
    return path_error(
        fmt::format("expected {} x {} values, got {}", times.size(), channels, values.size()));
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!std::isfinite(times[i]))
      return path_error(fmt::format("observation time {} is not finite ({})", i, times[i]));
    if (i > 0 && !(times[i] > times[i - 1]))
      return path_error(fmt::format(
          "observation times must be strictly increasing: t[{}] = {} follows t[{}] = {}", i,
          times[i], i - 1, times[i - 1]));
  }
  return {};
}

/// Copies channel `ch` of values [n][c] into `column` (resized to n).
inline void read_column(std::span<const double> values, int channels, int ch,
                        std::vector<double>& column) {
  const std::size_t n = values.size() / static_cast<std::size_t>(channels);
  column.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    column[i] = values[i * static_cast<std::size_t>(channels) + ch];
}

} // namespace plastic::rt::detail
