// Windows, next-step targets, first-row statics and the sampling period
// (see series_shaping.h).
#include "runtime/data/series_shaping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

namespace plastic::rt {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

std::string names_of(const std::vector<Channel>& channels, const std::vector<std::string>& extra) {
  std::string out;
  for (const Channel& c : channels)
    out += (out.empty() ? "" : ", ") + c.name;
  for (const std::string& t : extra)
    out += (out.empty() ? "" : ", ") + t;
  return out.empty() ? "none" : out;
}

// Moves the named channels, in the order given, to per-step targets.
Status<DataError> move_to_targets(Dataset& data, const std::vector<std::string>& names,
                                  const std::string& source) {
  if (data.target_kind != TargetKind::None && data.target_kind != TargetKind::RegressionPerStep)
    return file_error(source, "per-step targets cannot be added to data that has a class label");
  std::vector<std::size_t> picked;
  for (const std::string& name : names) {
    const auto c = data.channel_index(name);
    if (!c)
      return file_error(source,
                        fmt::format("no channel '{}' to use as a target; the channels are: {}",
                                    name, names_of(data.channels, {})));
    if (std::find(picked.begin(), picked.end(), *c) != picked.end())
      return file_error(source, fmt::format("target '{}' is named twice", name));
    picked.push_back(*c);
  }
  std::vector<std::size_t> kept;
  for (std::size_t c = 0; c < data.num_channels(); ++c)
    if (std::find(picked.begin(), picked.end(), c) == picked.end()) kept.push_back(c);
  if (kept.empty())
    return file_error(source,
                      "every channel is a target: no channel is left for the model to read");
  const std::size_t old_targets = data.targets.size();
  for (Sample& s : data.samples) {
    const std::size_t n = s.length(), width = data.num_channels();
    std::vector<double> values, target;
    values.reserve(n * kept.size());
    target.reserve(n * (old_targets + picked.size()));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c : kept)
        values.push_back(s.values[i * width + c]);
      for (std::size_t k = 0; k < old_targets; ++k)
        target.push_back(s.target[i * old_targets + k]);
      for (std::size_t c : picked)
        target.push_back(s.values[i * width + c]);
    }
    s.values = std::move(values);
    s.target = std::move(target);
  }
  for (std::size_t c : picked)
    data.targets.push_back(data.channels[c].name);
  std::vector<Channel> channels;
  channels.reserve(kept.size());
  for (std::size_t c : kept)
    channels.push_back(data.channels[c]);
  data.channels = std::move(channels);
  data.target_kind = TargetKind::RegressionPerStep;
  return {};
}

// Each step's target: the next observation of every channel.
Status<DataError> next_step_targets(Dataset& data, const std::string& source) {
  if (data.target_kind != TargetKind::None)
    return file_error(source, "the data already has targets; predicting the next observation "
                              "replaces them, so give one or the other");
  const std::size_t width = data.num_channels();
  for (Sample& s : data.samples) {
    const std::size_t n = s.length();
    s.target.assign(n * width, kMissing);
    if (n > 1)
      std::copy(s.values.begin() + static_cast<std::ptrdiff_t>(width), s.values.end(),
                s.target.begin());
  }
  for (const Channel& c : data.channels)
    data.targets.push_back("next_" + c.name);
  data.target_kind = TargetKind::RegressionPerStep;
  return {};
}

// Consecutive windows of `length` observations; ids get "@first_row".
Status<DataError> cut_windows(Dataset& data, std::size_t length, const std::string& source) {
  if (data.target_kind == TargetKind::Class || data.target_kind == TargetKind::Binary ||
      data.target_kind == TargetKind::Regression)
    return file_error(source, "windows need per-step targets or none: a whole-series label or "
                              "final-time target would be copied to every window");
  const std::size_t width = data.num_channels();
  const std::size_t twidth =
      data.target_kind == TargetKind::RegressionPerStep ? data.targets.size() : 0;
  std::vector<Sample> out;
  for (std::size_t index = 0; index < data.samples.size(); ++index) {
    const Sample& s = data.samples[index];
    for (std::size_t begin = 0; begin + length <= s.length(); begin += length) {
      Sample w;
      w.id = fmt::format("{}@{}", s.id, begin);
      w.source = static_cast<int64_t>(index);
      w.times.assign(s.times.begin() + static_cast<std::ptrdiff_t>(begin),
                     s.times.begin() + static_cast<std::ptrdiff_t>(begin + length));
      w.values.assign(s.values.begin() + static_cast<std::ptrdiff_t>(begin * width),
                      s.values.begin() + static_cast<std::ptrdiff_t>((begin + length) * width));
      w.target.assign(s.target.begin() + static_cast<std::ptrdiff_t>(begin * twidth),
                      s.target.begin() + static_cast<std::ptrdiff_t>((begin + length) * twidth));
      w.statics = s.statics;
      out.push_back(std::move(w));
    }
  }
  if (out.empty())
    return file_error(source, fmt::format("no series has {} observations: no window is left "
                                          "(the longest has {})",
                                          length, data.max_length()));
  data.samples = std::move(out);
  return {};
}

// Statics from the first observation of each sample.
Status<DataError> first_row_statics(Dataset& data, const std::vector<std::string>& names,
                                    const std::string& source) {
  struct Source {
    bool is_target;
    std::size_t index;
  };
  std::vector<Source> from;
  for (const std::string& name : names) {
    if (const auto c = data.channel_index(name)) {
      from.push_back({false, *c});
      continue;
    }
    const auto t = std::find(data.targets.begin(), data.targets.end(), name);
    if (t == data.targets.end() || data.target_kind != TargetKind::RegressionPerStep)
      return file_error(source, fmt::format("no channel or target '{}' to take a static feature "
                                            "from; there are: {}",
                                            name, names_of(data.channels, data.targets)));
    from.push_back({true, static_cast<std::size_t>(t - data.targets.begin())});
  }
  for (Sample& s : data.samples)
    for (const Source& f : from) {
      double v = kMissing;
      if (s.length() > 0) v = f.is_target ? s.target[f.index] : s.values[f.index];
      s.statics.push_back(v);
    }
  for (const std::string& name : names)
    data.statics.push_back({name + "_first"});
  return {};
}

} // namespace

Status<DataError> select_channels(Dataset& data, const std::vector<std::string>& names,
                                  const std::string& source) {
  std::vector<std::size_t> picked;
  for (const std::string& name : names) {
    const auto c = data.channel_index(name);
    if (!c)
      return file_error(source, fmt::format("no channel '{}'; the channels are: {}", name,
                                            names_of(data.channels, {})));
    if (std::find(picked.begin(), picked.end(), *c) != picked.end())
      return file_error(source, fmt::format("channel '{}' is named twice", name));
    picked.push_back(*c);
  }
  const std::size_t width = data.num_channels();
  for (Sample& s : data.samples) {
    std::vector<double> values;
    values.reserve(s.length() * picked.size());
    for (std::size_t i = 0; i < s.length(); ++i)
      for (std::size_t c : picked)
        values.push_back(s.values[i * width + c]);
    s.values = std::move(values);
  }
  std::vector<Channel> channels;
  channels.reserve(picked.size());
  for (std::size_t c : picked)
    channels.push_back(data.channels[c]);
  data.channels = std::move(channels);
  return {};
}

Status<DataError> take_time_channel(Dataset& data, const std::string& name,
                                    const std::string& source) {
  const auto k = data.channel_index(name);
  if (!k)
    return file_error(source,
                      fmt::format("--time {}: no channel of that name; the channels are: {}", name,
                                  names_of(data.channels, {})));
  if (data.num_channels() < 2)
    return file_error(source, fmt::format("--time {}: the series' only channel cannot also be "
                                          "their time",
                                          name));
  const std::size_t width = data.num_channels();
  for (Sample& s : data.samples) {
    std::vector<double> times(s.length()), values;
    values.reserve(s.length() * (width - 1));
    for (std::size_t i = 0; i < s.length(); ++i) {
      times[i] = s.values[i * width + *k];
      if (!std::isfinite(times[i]) || (i > 0 && !(times[i] > times[i - 1])))
        return file_error(
            fmt::format("{}/{}.npy", source, s.id),
            fmt::format("row {}: time {} (channel {}) is {}", i, times[i], name,
                        std::isfinite(times[i])
                            ? fmt::format("not after the row before's {}", times[i - 1])
                            : std::string("not a finite number")));
      for (std::size_t c = 0; c < width; ++c)
        if (c != *k) values.push_back(s.values[i * width + c]);
    }
    s.times = std::move(times);
    s.values = std::move(values);
  }
  data.channels.erase(data.channels.begin() + static_cast<std::ptrdiff_t>(*k));
  return {};
}

Status<DataError> shape_series(Dataset& data, const SeriesShaping& shaping,
                               const std::string& source) {
  if (!shaping.target_channels.empty())
    if (auto s = move_to_targets(data, shaping.target_channels, source); !s) return s;
  if (shaping.target_next)
    if (auto s = next_step_targets(data, source); !s) return s;
  if (shaping.window < 0 || shaping.window == 1)
    return file_error(source, "a window needs at least 2 observations");
  if (shaping.window > 0)
    if (auto s = cut_windows(data, static_cast<std::size_t>(shaping.window), source); !s) return s;
  if (!shaping.statics.empty())
    if (auto s = first_row_statics(data, shaping.statics, source); !s) return s;
  if (!(shaping.period > 0) || shaping.period == std::numeric_limits<double>::infinity())
    return file_error(source, "the sampling period must be a positive number");
  if (shaping.period != 1)
    for (Sample& s : data.samples)
      for (double& t : s.times)
        t *= shaping.period;
  return {};
}

} // namespace plastic::rt
