// Building the windowed log-signature driver; see logsig_path.h.
#include "runtime/logsig/logsig_path.h"

#include <optional>

#include <fmt/format.h>

#include "runtime/paths/missing.h"
#include "runtime/paths/path_input.h"

namespace plastic::rt {

Result<LogSigPath, PathError> LogSigPath::make(std::span<const double> times,
                                               std::span<const double> values, int channels,
                                               const LogSigOptions& options) {
  Result<LogSignature, PathError> engine =
      LogSignature::make(channels + (options.prepend_time ? 1 : 0), options.depth, options.mode);
  if (!engine) return engine.error();
  return make(times, values, channels, options, engine.value());
}

Result<LogSigPath, PathError> LogSigPath::make(std::span<const double> times,
                                               std::span<const double> values, int channels,
                                               const LogSigOptions& options, LogSignature& engine) {
  LogSigPath path;
  if (Status<PathError> s = path.build(times, values, channels, options, engine); !s)
    return s.error();
  return path;
}

Status<PathError> LogSigPath::build(std::span<const double> times, std::span<const double> values,
                                    int channels, const LogSigOptions& options,
                                    LogSignature& engine) {
  if (Status<PathError> s = detail::check_observations(times, values, channels); !s) return s;
  if (options.step < 1)
    return path_error(fmt::format("log-signature step must be >= 1, got {}", options.step));
  if (!options.leading_fill.empty() &&
      options.leading_fill.size() != static_cast<std::size_t>(channels))
    return path_error(fmt::format("leading_fill has {} values for {} channels",
                                  options.leading_fill.size(), channels));
  const int d = channels + (options.prepend_time ? 1 : 0);
  if (engine.channels() != d || engine.depth() != options.depth || engine.mode() != options.mode)
    return path_error(fmt::format("log-signature engine is for d={}, depth {}; this series needs "
                                  "d={}, depth {} (and the same mode)",
                                  engine.channels(), engine.depth(), d, options.depth));

  // Forward-filled data [n][d], time first if requested.
  const std::size_t n = times.size();
  const std::size_t du = static_cast<std::size_t>(d);
  std::vector<double> filled(n * du), column;
  const int shift = options.prepend_time ? 1 : 0;
  if (options.prepend_time)
    for (std::size_t r = 0; r < n; ++r)
      filled[r * du] = times[r];
  for (int ch = 0; ch < channels; ++ch) {
    detail::read_column(values, channels, ch, column);
    const std::optional<double> leading = options.leading_fill.empty()
                                              ? std::nullopt
                                              : std::optional<double>(options.leading_fill[ch]);
    fill_forward(column, leading);
    for (std::size_t r = 0; r < n; ++r)
      filled[r * du + static_cast<std::size_t>(ch + shift)] = column[r];
  }

  const std::size_t step = static_cast<std::size_t>(options.step);
  windows_ = static_cast<int>((n - 1 + step - 1) / step);
  channels_ = static_cast<int>(engine.size());
  input_channels_ = d;
  const std::size_t m = static_cast<std::size_t>(windows_);
  const std::size_t beta = static_cast<std::size_t>(channels_);
  data_.assign(2 * m + 1 + m * 2 * beta, 0.0);
  double* knots = data_.data();
  double* inv_len = knots + m + 1;
  double* blocks = inv_len + m;
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t first = i * step, last = std::min(first + step, n - 1);
    knots[i] = times[first];
    knots[i + 1] = times[last];
    inv_len[i] = 1.0 / (times[last] - times[first]);
    double* start = blocks + i * 2 * beta;
    double* logsig = start + beta;
    engine.compute(std::span<const double>(filled.data() + first * du, (last - first + 1) * du),
                   logsig);
    if (i > 0) {
      const double* prev = start - 2 * beta;
      for (std::size_t k = 0; k < beta; ++k)
        start[k] = prev[k] + prev[beta + k];
    }
  }
  return {};
}

} // namespace plastic::rt
