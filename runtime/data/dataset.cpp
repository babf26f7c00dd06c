// Dataset helpers: lookup, subsets and the consistency check (dataset.h).
#include "runtime/data/dataset.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace plastic::rt {

const char* channel_kind_name(ChannelKind kind) {
  switch (kind) {
  case ChannelKind::Measured:
    return "measured";
  case ChannelKind::Time:
    return "time";
  case ChannelKind::Count:
    return "count";
  case ChannelKind::Indicator:
    return "indicator";
  }
  return "?";
}

const char* target_kind_name(TargetKind kind) {
  switch (kind) {
  case TargetKind::None:
    return "none";
  case TargetKind::Class:
    return "class";
  case TargetKind::Binary:
    return "binary";
  case TargetKind::Regression:
    return "regression";
  case TargetKind::RegressionPerStep:
    return "regression per step";
  }
  return "?";
}

std::optional<std::size_t> Dataset::channel_index(std::string_view channel) const {
  for (std::size_t c = 0; c < channels.size(); ++c)
    if (channels[c].name == channel) return c;
  return std::nullopt;
}

std::vector<int> Dataset::labels() const {
  std::vector<int> out;
  out.reserve(samples.size());
  for (const Sample& s : samples)
    out.push_back(s.label);
  return out;
}

std::size_t Dataset::min_length() const {
  if (samples.empty()) return 0;
  std::size_t n = samples.front().length();
  for (const Sample& s : samples)
    n = std::min(n, s.length());
  return n;
}

std::size_t Dataset::max_length() const {
  std::size_t n = 0;
  for (const Sample& s : samples)
    n = std::max(n, s.length());
  return n;
}

std::optional<std::string> Dataset::check() const {
  const std::size_t c = channels.size();
  const bool labelled = target_kind == TargetKind::Class || target_kind == TargetKind::Binary;
  if (target_kind == TargetKind::Binary && classes.size() != 2)
    return fmt::format("a binary dataset names 2 classes, this one {}", classes.size());
  for (std::size_t s = 0; s < samples.size(); ++s) {
    const Sample& x = samples[s];
    const std::string where = fmt::format("sample {} ('{}')", s, x.id);
    if (x.values.size() != x.times.size() * c)
      return fmt::format("{}: {} values for {} times x {} channels", where, x.values.size(),
                         x.times.size(), c);
    for (std::size_t i = 0; i < x.times.size(); ++i) {
      if (!std::isfinite(x.times[i])) return fmt::format("{}: time {} is not finite", where, i);
      if (i > 0 && !(x.times[i] > x.times[i - 1]))
        return fmt::format("{}: times not strictly increasing at {} ({} after {})", where, i,
                           x.times[i], x.times[i - 1]);
    }
    if (x.statics.size() != statics.size())
      return fmt::format("{}: {} static features, the dataset declares {}", where, x.statics.size(),
                         statics.size());
    if (labelled) {
      if (x.label < 0 || static_cast<std::size_t>(x.label) >= classes.size())
        return fmt::format("{}: label {} outside [0, {})", where, x.label, classes.size());
    } else if (x.label != -1) {
      return fmt::format("{}: label {} in a dataset whose target is {}", where, x.label,
                         target_kind_name(target_kind));
    }
    std::size_t want = 0;
    if (target_kind == TargetKind::Regression) want = targets.size();
    if (target_kind == TargetKind::RegressionPerStep) want = targets.size() * x.times.size();
    if (x.target.size() != want)
      return fmt::format("{}: {} target values, expected {}", where, x.target.size(), want);
  }
  return std::nullopt;
}

Dataset subset(const Dataset& data, std::span<const std::size_t> indices) {
  Dataset out;
  out.name = data.name;
  out.channels = data.channels;
  out.statics = data.statics;
  out.target_kind = data.target_kind;
  out.classes = data.classes;
  out.targets = data.targets;
  out.samples.reserve(indices.size());
  for (std::size_t i : indices)
    out.samples.push_back(data.samples.at(i));
  return out;
}

Dataset prefixes(const Dataset& data, std::size_t length) {
  Dataset out = data;
  const std::size_t width = data.num_channels(), targets = data.targets.size();
  for (Sample& s : out.samples) {
    if (s.length() <= length) continue;
    s.times.resize(length);
    s.values.resize(length * width);
    if (data.target_kind == TargetKind::RegressionPerStep) s.target.resize(length * targets);
  }
  return out;
}

} // namespace plastic::rt
