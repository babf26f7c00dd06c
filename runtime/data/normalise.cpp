// Normalisation with training statistics (see normalise.h).
#include "runtime/data/normalise.h"

#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {
namespace {

// Mean and (std + epsilon) of the non-NaN values of one column, two passes
// for accuracy on columns with a large offset (e.g. times in hours).
template <class Visit> void column_stats(Visit visit, double epsilon, double& mean, double& scale) {
  double sum = 0;
  std::size_t n = 0;
  visit([&](double x) {
    if (!std::isnan(x)) sum += x, ++n;
  });
  mean = n > 0 ? sum / static_cast<double>(n) : 0.0;
  if (n < 2) {
    scale = 1.0;
    return;
  }
  double squares = 0;
  const double m = mean;
  visit([&](double x) {
    if (!std::isnan(x)) squares += (x - m) * (x - m);
  });
  scale = std::sqrt(squares / static_cast<double>(n - 1)) + epsilon;
}

// 1 / the mean span (last - first observation time) of the samples of
// `train` with at least two observations; 1 when there are none or every
// span is 0.
double inverse_mean_span(const Dataset& train) {
  double sum = 0;
  std::size_t n = 0;
  for (const Sample& s : train.samples)
    if (s.length() >= 2) sum += s.times.back() - s.times.front(), ++n;
  const double mean = n > 0 ? sum / static_cast<double>(n) : 0.0;
  return mean > 0 && std::isfinite(mean) ? 1.0 / mean : 1.0;
}

// RMS over `train` of the per-step increments of the Measured channels as
// standardised by `n` (NaN steps skipped); 1 when there are none or all are 0.
double increment_rms(const Dataset& train, const Normaliser& n) {
  const std::size_t c = train.num_channels();
  double squares = 0;
  std::size_t count = 0;
  for (std::size_t k = 0; k < c; ++k) {
    if (train.channels[k].kind != ChannelKind::Measured) continue;
    for (const Sample& s : train.samples)
      for (std::size_t i = 0; i + 1 < s.length(); ++i) {
        const double step = (s.values[(i + 1) * c + k] - s.values[i * c + k]) / n.channel_scale[k];
        if (!std::isnan(step)) squares += step * step, ++count;
      }
  }
  const double rms = count > 0 ? std::sqrt(squares / static_cast<double>(count)) : 0.0;
  return rms > 0 && std::isfinite(rms) ? rms : 1.0;
}

} // namespace

Normaliser fit_normaliser(const Dataset& train, double epsilon, bool unit_increments) {
  Normaliser out;
  const std::size_t c = train.num_channels();
  out.channel_mean.assign(c, 0.0);
  out.channel_scale.assign(c, 1.0);
  for (std::size_t k = 0; k < c; ++k) {
    if (train.channels[k].kind != ChannelKind::Measured) continue;
    column_stats(
        [&](auto&& f) {
          for (const Sample& s : train.samples)
            for (std::size_t i = 0; i < s.length(); ++i)
              f(s.values[i * c + k]);
        },
        epsilon, out.channel_mean[k], out.channel_scale[k]);
  }
  for (const Channel& ch : train.channels)
    if (ch.kind == ChannelKind::Time) out.time_scale = inverse_mean_span(train);
  if (unit_increments) {
    out.increment_rms = increment_rms(train, out);
    for (std::size_t k = 0; k < c; ++k)
      if (train.channels[k].kind == ChannelKind::Measured)
        out.channel_scale[k] *= out.increment_rms;
  }
  const std::size_t m = train.num_statics();
  out.static_mean.assign(m, 0.0);
  out.static_scale.assign(m, 1.0);
  for (std::size_t k = 0; k < m; ++k) {
    if (train.statics[k].kind != ChannelKind::Measured) continue;
    column_stats(
        [&](auto&& f) {
          for (const Sample& s : train.samples)
            f(s.statics[k]);
        },
        epsilon, out.static_mean[k], out.static_scale[k]);
  }
  return out;
}

Status<DataError> Normaliser::apply(Dataset& data) const {
  const std::size_t c = data.num_channels();
  const std::size_t m = data.num_statics();
  if (c != channel_mean.size() || m != static_mean.size())
    return file_error(
        "", fmt::format("cannot normalise '{}': it has {} channels and {} static features, the "
                        "statistics were fitted on {} and {}",
                        data.name, c, m, channel_mean.size(), static_mean.size()));
  for (Sample& s : data.samples) {
    for (std::size_t i = 0; i < s.length(); ++i)
      for (std::size_t k = 0; k < c; ++k) {
        double& x = s.values[i * c + k];
        x = data.channels[k].kind == ChannelKind::Time ? x * time_scale
                                                       : (x - channel_mean[k]) / channel_scale[k];
      }
    for (std::size_t k = 0; k < m; ++k)
      s.statics[k] = (s.statics[k] - static_mean[k]) / static_scale[k];
  }
  return {};
}

} // namespace plastic::rt
