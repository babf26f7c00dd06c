// The n-bit flip-flop generator (see flipflop.h).
#include "runtime/data/flipflop.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

namespace plastic::rt {

namespace {

// Uniform in [0, 1) from the top 53 bits of one draw.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Knuth's multiplication method: fine for the small means used here.
int poisson(std::mt19937_64& rng, double mean) {
  double limit = std::exp(-mean), product = uniform01(rng);
  int k = 0;
  while (product > limit) {
    ++k;
    product *= uniform01(rng);
  }
  return k;
}

// Uniform integer in [0, n) by rejection (no modulo bias).
uint64_t below(std::mt19937_64& rng, uint64_t n) {
  uint64_t limit = ~uint64_t{0} - (~uint64_t{0} % n);
  uint64_t x;
  do
    x = rng();
  while (x >= limit);
  return x % n;
}

} // namespace

Dataset make_flipflop(const FlipFlopOptions& o) {
  Dataset data;
  data.name = std::to_string(o.bits) + "-bit flip-flop" +
              (o.variable_amplitude ? " (variable amplitude)" : "");
  for (int c = 0; c < o.bits; ++c) {
    data.channels.push_back({"in" + std::to_string(c), ChannelKind::Measured});
    data.targets.push_back("out" + std::to_string(c));
  }
  data.target_kind = TargetKind::RegressionPerStep;

  std::mt19937_64 rng(o.seed);
  const size_t n = static_cast<size_t>(o.bins), channels = static_cast<size_t>(o.bits);
  const double no_target = std::numeric_limits<double>::quiet_NaN();
  for (int64_t trial = 0; trial < o.trials; ++trial) {
    // Observations at the n + 1 bin edges (see flipflop.h): the input of
    // bin i at its start, t_i, its target at its end, t_{i+1}.
    Sample s;
    s.id = "trial" + std::to_string(trial);
    s.times.resize(n + 1);
    for (size_t j = 0; j <= n; ++j)
      s.times[j] = static_cast<double>(j) * o.bin_width;
    s.values.assign((n + 1) * channels, 0.0);
    s.target.assign((n + 1) * channels, 0.0);
    std::fill(s.target.begin(), s.target.begin() + static_cast<std::ptrdiff_t>(channels),
              no_target);

    // Pulse onsets: k distinct bins (partial Fisher-Yates shuffle), sorted.
    size_t k = std::min<size_t>(n, static_cast<size_t>(poisson(rng, o.mean_pulses)));
    std::vector<size_t> bins(n);
    std::iota(bins.begin(), bins.end(), 0);
    for (size_t j = 0; j < k; ++j)
      std::swap(bins[j], bins[j + below(rng, n - j)]);
    bins.resize(k);
    std::sort(bins.begin(), bins.end());

    std::vector<double> held(channels, 0.0);
    size_t next = 0;
    for (size_t i = 0; i < n; ++i) {
      while (next < bins.size() && bins[next] == i) {
        size_t c = below(rng, channels);
        double value = o.variable_amplitude ? 2 * uniform01(rng) - 1 : (below(rng, 2) ? 1.0 : -1.0);
        // Pulses may overlap in a channel; the later one overwrites.
        for (size_t w = i; w < std::min(n, i + static_cast<size_t>(o.pulse_bins)); ++w)
          s.values[w * channels + c] = value;
        held[c] = value;
        ++next;
      }
      for (size_t c = 0; c < channels; ++c)
        s.target[(i + 1) * channels + c] = held[c];
    }
    data.samples.push_back(std::move(s));
  }
  return data;
}

} // namespace plastic::rt
