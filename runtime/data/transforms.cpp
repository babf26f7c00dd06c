// Derived channels: time and observational intensity (see transforms.h).
#include "runtime/data/transforms.h"

#include <cmath>
#include <vector>

namespace plastic::rt {
namespace {

// Rebuilds every sample's values with `added` new leading channels, filled
// by `fill(sample, i, out)` for observation i (out points at the new slots).
template <class Fill> void prepend_channels(Dataset& data, std::size_t added, Fill fill) {
  const std::size_t old_c = data.channels.size();
  const std::size_t new_c = old_c + added;
  for (Sample& s : data.samples) {
    const std::size_t n = s.length();
    std::vector<double> values(n * new_c);
    for (std::size_t i = 0; i < n; ++i) {
      double* out = values.data() + i * new_c;
      fill(s, i, out);
      for (std::size_t c = 0; c < old_c; ++c)
        out[added + c] = s.values[i * old_c + c];
    }
    s.values = std::move(values);
  }
}

} // namespace

void add_time_channel(Dataset& data, bool from_zero) {
  prepend_channels(data, 1, [from_zero](const Sample& s, std::size_t i, double* out) {
    out[0] = from_zero ? s.times[i] - s.times[0] : s.times[i];
  });
  data.channels.insert(data.channels.begin(), Channel{"time", ChannelKind::Time});
}

void add_observation_intensity(Dataset& data) {
  std::vector<std::size_t> measured;
  for (std::size_t c = 0; c < data.channels.size(); ++c)
    if (data.channels[c].kind == ChannelKind::Measured) measured.push_back(c);
  const std::size_t old_c = data.channels.size();
  std::vector<double> counts(measured.size());
  prepend_channels(data, measured.size(), [&](const Sample& s, std::size_t i, double* out) {
    if (i == 0) counts.assign(measured.size(), 0.0);
    for (std::size_t k = 0; k < measured.size(); ++k) {
      if (!std::isnan(s.values[i * old_c + measured[k]])) counts[k] += 1;
      out[k] = counts[k];
    }
  });
  std::vector<Channel> names;
  names.reserve(measured.size());
  for (std::size_t c : measured)
    names.push_back({data.channels[c].name + "_count", ChannelKind::Count});
  data.channels.insert(data.channels.begin(), names.begin(), names.end());
}

} // namespace plastic::rt
