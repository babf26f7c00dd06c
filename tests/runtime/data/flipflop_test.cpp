// The generated flip-flop task (paper 003 App. F.1-F.2): well-formed, the
// targets hold the latest pulse of each channel, the pulse statistics match
// the specification, and a seed fixes the trials.
#include <catch2/catch.hpp>

#include "runtime/data/flipflop.h"

#include <cmath>

using namespace plastic::rt;

TEST_CASE("flip-flop trials are well-formed and hold the latest pulse", "[flipflop]") {
  FlipFlopOptions o;
  o.trials = 200;
  Dataset d = make_flipflop(o);
  REQUIRE(!d.check());
  REQUIRE(d.size() == 200);
  REQUIRE(d.num_channels() == 3);
  REQUIRE(d.target_kind == TargetKind::RegressionPerStep);
  double onsets = 0;
  for (const Sample& s : d.samples) {
    // The 101 bin edges: bin i's input at its start, its target at its end.
    REQUIRE(s.length() == 101);
    CHECK(s.times[1] - s.times[0] == Approx(0.01));
    for (size_t c = 0; c < 3; ++c) {
      CHECK(std::isnan(s.target[c]));    // no bin has ended at t_0
      CHECK(s.values[100 * 3 + c] == 0); // nor starts at t_100
      double held = 0;
      for (size_t i = 0; i < 100; ++i) {
        double v = s.values[i * 3 + c], prev = i ? s.values[(i - 1) * 3 + c] : 0.0;
        CHECK(std::abs(v) <= 1.0);
        // A pulse starts where the input changes to a nonzero value.
        if (v != 0 && v != prev) {
          held = v;
          ++onsets;
        }
        // Bin i's target, at its end, holds a pulse that starts in bin i.
        CHECK(s.target[(i + 1) * 3 + c] == held);
      }
    }
  }
  // Poisson(12) pulses per trial; overlapping pulses in one channel merge,
  // so the visible onsets are a little fewer. Mean within a generous band.
  double mean = onsets / 200;
  CHECK(mean > 9.5);
  CHECK(mean < 12.5);
}

TEST_CASE("fixed amplitude pulses are +-1 and seeds fix the trials", "[flipflop]") {
  FlipFlopOptions o;
  o.trials = 20;
  o.variable_amplitude = false;
  Dataset a = make_flipflop(o), b = make_flipflop(o);
  for (const Sample& s : a.samples)
    for (double v : s.values)
      CHECK((v == 0 || std::abs(v) == 1));
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(a.samples[i].values == b.samples[i].values);
  o.seed = 1;
  Dataset c = make_flipflop(o);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i)
    differs |= a.samples[i].values != c.samples[i].values;
  CHECK(differs);
}
