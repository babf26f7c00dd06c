// Derived channels (time, observational intensity) and normalisation with
// training statistics only, on small datasets worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/data/normalise.h"
#include "runtime/data/transforms.h"

using namespace plastic::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

// Two channels (a measured, b measured), one static; sample 0 has 3 steps.
Dataset toy() {
  Dataset d;
  d.channels = {{"a"}, {"b"}};
  d.statics = {{"age"}, {"flag", ChannelKind::Indicator}};
  Sample s0;
  s0.times = {10, 11, 13};
  s0.values = {1, kNaN, kNaN, 2, 3, kNaN};
  s0.statics = {20, 1};
  Sample s1;
  s1.times = {0, 5};
  s1.values = {5, 6, kNaN, kNaN};
  s1.statics = {40, 0};
  d.samples = {s0, s1};
  return d;
}

} // namespace

TEST_CASE("add_time_channel prepends the times, optionally from zero", "[data][transforms]") {
  Dataset d = toy();
  add_time_channel(d);
  REQUIRE(d.num_channels() == 3);
  CHECK(d.channels[0] == Channel{"time", ChannelKind::Time});
  CHECK(same(d.samples[0].values, {10, 1, kNaN, 11, kNaN, 2, 13, 3, kNaN}));
  CHECK(!d.check());
  Dataset z = toy();
  add_time_channel(z, true);
  CHECK(same(z.samples[0].values, {0, 1, kNaN, 1, kNaN, 2, 3, 3, kNaN}));
}

TEST_CASE("add_observation_intensity counts observations per measured channel",
          "[data][transforms]") {
  Dataset d = toy();
  add_observation_intensity(d);
  REQUIRE(d.num_channels() == 4);
  CHECK(d.channels[0] == Channel{"a_count", ChannelKind::Count});
  CHECK(d.channels[1] == Channel{"b_count", ChannelKind::Count});
  // a observed at steps 0 and 2, b at step 1.
  CHECK(same(d.samples[0].values, {1, 0, 1, kNaN, 1, 1, kNaN, 2, 2, 1, 3, kNaN}));
  CHECK(same(d.samples[1].values, {1, 1, 5, 6, 1, 1, kNaN, kNaN}));
  // Then time: Kidger et al.'s [time, intensity, original] order.
  add_time_channel(d);
  CHECK(d.channels[0].kind == ChannelKind::Time);
  CHECK(d.channels[1].name == "a_count");
  CHECK(d.channels[3].name == "a");
  CHECK(!d.check());
}

TEST_CASE("normalisation: training statistics only, NaN kept, other kinds untouched",
          "[data][normalise]") {
  Dataset train = toy();
  add_observation_intensity(train);
  const Normaliser n = fit_normaliser(train);
  // Channel a over training: {1, 3, 5}: mean 3, sample std 2.
  CHECK(n.channel_mean[2] == 3);
  CHECK(n.channel_scale[2] == Approx(2 + 1e-5).epsilon(1e-15));
  // Channel b: {2, 6}: mean 4, std sqrt(8).
  CHECK(n.channel_mean[3] == 4);
  CHECK(n.channel_scale[3] == Approx(std::sqrt(8.0) + 1e-5).epsilon(1e-15));
  // Counts are not normalised; neither is the indicator static.
  CHECK(n.channel_mean[0] == 0);
  CHECK(n.channel_scale[0] == 1);
  CHECK(n.static_mean == std::vector<double>{30, 0});
  CHECK(n.static_scale[0] == Approx(std::sqrt(200.0) + 1e-5).epsilon(1e-15));
  CHECK(n.static_scale[1] == 1);

  // Applied to another split: the training numbers, not the split's own.
  Dataset other = toy();
  add_observation_intensity(other);
  other.samples.resize(1);
  REQUIRE(n.apply(other).ok());
  const auto& v = other.samples[0].values;
  CHECK(v[0] == 1); // a_count
  CHECK(v[2] == Approx((1 - 3) / (2 + 1e-5)).epsilon(1e-15));
  CHECK(std::isnan(v[3]));
  CHECK(v[7] == Approx((2 - 4) / (std::sqrt(8.0) + 1e-5)).epsilon(1e-15));
  CHECK(other.samples[0].statics[0] ==
        Approx((20 - 30) / (std::sqrt(200.0) + 1e-5)).epsilon(1e-15));
  CHECK(other.samples[0].statics[1] == 1);

  Dataset wrong = toy(); // 2 channels, fitted on 4
  const auto status = n.apply(wrong);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().describe() == "cannot normalise '': it has 2 channels and 2 static "
                                     "features, the statistics were fitted on 4 and 2");
}

TEST_CASE("normalisation: columns with fewer than two training observations pass through",
          "[data][normalise]") {
  Dataset d;
  d.channels = {{"never"}, {"once"}};
  Sample s;
  s.times = {0, 1};
  s.values = {kNaN, 7, kNaN, kNaN};
  d.samples = {s};
  const Normaliser n = fit_normaliser(d);
  CHECK(n.channel_mean == std::vector<double>{0, 7});
  CHECK(n.channel_scale == std::vector<double>{1, 1});
  REQUIRE(n.apply(d).ok());
  CHECK(same(d.samples[0].values, {kNaN, 0, kNaN, kNaN}));
}

TEST_CASE("normalisation: the time channel is rescaled to the mean training span",
          "[data][normalise]") {
  // Spans 13 - 10 = 3 and 5 - 0 = 5: mean 4, so time is divided by 4.
  Dataset train = toy();
  add_time_channel(train);
  const Normaliser n = fit_normaliser(train);
  CHECK(n.time_scale == 0.25);
  CHECK(n.channel_mean[0] == 0); // time is not standardised
  CHECK(n.increment_rms == 1);   // not asked for
  Dataset other = toy();
  add_time_channel(other);
  other.samples[1].times = {0, 40};
  other.samples[1].values[3] = 40; // [time, a, b] per observation
  REQUIRE(n.apply(other).ok());
  // The training factor, not the split's own span: 40 / 4, and 10, 11, 13 / 4.
  CHECK(other.samples[1].values[3] == 10);
  CHECK(other.samples[0].values[0] == 2.5);
  CHECK(other.samples[0].values[3] == 2.75);
  CHECK(other.samples[0].values[6] == 3.25);
  // The observation times the solver integrates over are kept.
  CHECK(other.samples[0].times == std::vector<double>{10, 11, 13});
}

TEST_CASE("normalisation: without a time channel or span, time_scale is 1", "[data][normalise]") {
  CHECK(fit_normaliser(toy()).time_scale == 1);
  Dataset one;
  one.channels = {{"a"}};
  Sample s;
  s.times = {3};
  s.values = {1};
  one.samples = {s};
  add_time_channel(one);
  CHECK(fit_normaliser(one).time_scale == 1);
}

TEST_CASE("normalisation: unit increments from the training split only", "[data][normalise]") {
  // One channel; a = {0, 1, 3} and {5, 6}. Standardised with mean 3 and
  // sample std sqrt(26 / 4) (+ 1e-5), the steps 1, 2 and 1 become s / std,
  // so their RMS is sqrt(2) / std and the scale becomes std * RMS = sqrt(2).
  Dataset train;
  train.channels = {{"a"}};
  Sample s0;
  s0.times = {0, 1, 2};
  s0.values = {0, 1, 3};
  Sample s1;
  s1.times = {0, 1};
  s1.values = {5, 6};
  train.samples = {s0, s1};
  const double sd = std::sqrt(6.5) + 1e-5;
  const Normaliser n = fit_normaliser(train, 1e-5, true);
  CHECK(n.increment_rms == Approx(std::sqrt(2.0) / sd).epsilon(1e-14));
  CHECK(n.channel_scale[0] == Approx(std::sqrt(2.0)).epsilon(1e-14));
  CHECK(n.channel_mean[0] == 3);
  // The increments of the normalised training data have unit RMS.
  Dataset t = train;
  REQUIRE(n.apply(t).ok());
  double squares = 0;
  for (const Sample& s : t.samples)
    for (std::size_t i = 0; i + 1 < s.length(); ++i)
      squares += (s.values[i + 1] - s.values[i]) * (s.values[i + 1] - s.values[i]);
  CHECK(std::sqrt(squares / 3) == Approx(1).epsilon(1e-14));
  // A rough test split does not change the statistics it is normalised with.
  Dataset test = train;
  test.samples[0].values = {0, 100, -100};
  REQUIRE(n.apply(test).ok());
  CHECK(test.samples[0].values[1] == Approx((100 - 3) / std::sqrt(2.0)).epsilon(1e-14));
  // NaN steps are skipped; time and count channels are not scaled by it.
  Dataset gaps = train;
  gaps.samples[0].values = {0, kNaN, 3};
  add_time_channel(gaps);
  const Normaliser g = fit_normaliser(gaps, 1e-5, true);
  CHECK(g.channel_scale[0] == 1);
  CHECK(g.time_scale == Approx(1.0 / 1.5));
}
