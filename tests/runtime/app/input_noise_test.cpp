// Noise on the input path (runtime/app/input_noise.h): only finite measured
// values move, by N(0, sigma^2), the same for the same seed and epoch and
// new for another epoch.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "runtime/app/input_noise.h"

using namespace plastic::rt;

namespace {

/// 50 series of 40 observations: a time channel, a measured one (with a
/// missing value in the first series) and an indicator.
Dataset toy_dataset() {
  Dataset d;
  d.channels = {
      {"time", ChannelKind::Time}, {"x", ChannelKind::Measured}, {"seen", ChannelKind::Indicator}};
  for (int s = 0; s < 50; ++s) {
    Sample sample;
    for (int i = 0; i < 40; ++i) {
      sample.times.push_back(i);
      sample.values.insert(sample.values.end(), {double(i), std::sin(0.1 * (i + s)), 1.0});
    }
    d.samples.push_back(std::move(sample));
  }
  d.samples[0].values[3 * 5 + 1] = std::numeric_limits<double>::quiet_NaN();
  return d;
}

} // namespace

TEST_CASE("input noise moves the measured values only by N(0, sigma^2)", "[input-noise]") {
  const Dataset clean = toy_dataset();
  const double sigma = 0.3;
  const Dataset noisy = with_input_noise(clean, sigma, 7, 1);
  double sum = 0, sum_sq = 0;
  int64_t n = 0;
  for (size_t s = 0; s < clean.size(); ++s)
    for (size_t i = 0; i < clean.samples[s].length(); ++i) {
      CHECK(noisy.value(s, i, 0) == clean.value(s, i, 0)); // time
      CHECK(noisy.value(s, i, 2) == clean.value(s, i, 2)); // indicator
      const double before = clean.value(s, i, 1), after = noisy.value(s, i, 1);
      if (std::isnan(before)) {
        CHECK(std::isnan(after));
        continue;
      }
      const double e = after - before;
      sum += e;
      sum_sq += e * e;
      ++n;
    }
  REQUIRE(n == 50 * 40 - 1);
  const double mean = sum / double(n);
  const double std = std::sqrt(sum_sq / double(n) - mean * mean);
  // 1999 draws: the mean within 4 standard errors, the std within 5 %.
  CHECK(std::abs(mean) < 4 * sigma / std::sqrt(double(n)));
  CHECK(std / sigma == Approx(1.0).margin(0.05));
}

TEST_CASE("input noise is the same for a seed and epoch and new for another epoch",
          "[input-noise]") {
  const Dataset clean = toy_dataset();
  const Dataset a = with_input_noise(clean, 0.1, 7, 3);
  const Dataset b = with_input_noise(clean, 0.1, 7, 3);
  const Dataset next = with_input_noise(clean, 0.1, 7, 4);
  const Dataset other_seed = with_input_noise(clean, 0.1, 8, 3);
  CHECK(a.samples[4].values == b.samples[4].values);
  CHECK(a.samples[4].values != next.samples[4].values);
  CHECK(a.samples[4].values != other_seed.samples[4].values);
}
