// Reshaping read series for a model (series_shaping.h): channels moved to
// targets, next-step targets, windows, first-row statics and the period.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/data/csv_reader.h"
#include "runtime/data/series_shaping.h"

using namespace plastic::rt;

namespace {

// One series, 5 rows, channels a and b (b = 10 a), times 0..4.
Dataset two_channels() {
  auto d = parse_csv("a,b\n1,10\n2,20\n3,30\n4,40\n5,50\n", "s.csv", CsvOptions{});
  REQUIRE(d);
  return std::move(d).value();
}

} // namespace

TEST_CASE("channels become per-step targets by name", "[data][shaping]") {
  Dataset d = two_channels();
  SeriesShaping s;
  s.target_channels = {"b"};
  REQUIRE(shape_series(d, s, "s.csv"));
  CHECK(!d.check());
  CHECK(d.num_channels() == 1);
  CHECK(d.target_kind == TargetKind::RegressionPerStep);
  CHECK(d.targets == std::vector<std::string>{"b"});
  CHECK(d.samples[0].values == std::vector<double>{1, 2, 3, 4, 5});
  CHECK(d.samples[0].target == std::vector<double>{10, 20, 30, 40, 50});
  SeriesShaping unknown;
  unknown.target_channels = {"c"};
  Dataset e = two_channels();
  const auto st = shape_series(e, unknown, "s.csv");
  REQUIRE(!st);
  CHECK(st.error().describe() ==
        "s.csv: no channel 'c' to use as a target; the channels are: a, b");
}

TEST_CASE("next-step targets, then windows that keep them across the cut", "[data][shaping]") {
  Dataset d = two_channels();
  SeriesShaping s;
  s.target_next = true;
  s.window = 2;
  REQUIRE(shape_series(d, s, "s.csv"));
  CHECK(!d.check());
  REQUIRE(d.size() == 2); // rows 0-1 and 2-3; row 4 is a short tail, dropped
  CHECK(d.samples[0].id == "s@0");
  CHECK(d.samples[1].id == "s@2");
  CHECK(d.samples[1].times == std::vector<double>{2, 3});
  // Row 3's target is row 4 (in no window): windows cut after the targets.
  CHECK(d.samples[1].target == std::vector<double>{4, 40, 5, 50});
  Dataset whole = two_channels();
  SeriesShaping next;
  next.target_next = true;
  REQUIRE(shape_series(whole, next, "s.csv"));
  CHECK(std::isnan(whole.samples[0].target.back())); // the last row has no next
}

TEST_CASE("statics from a window's first row, times scaled by the period", "[data][shaping]") {
  Dataset d = two_channels();
  SeriesShaping s;
  s.target_channels = {"b"};
  s.window = 2;
  s.statics = {"b", "a"};
  s.period = 4;
  REQUIRE(shape_series(d, s, "s.csv"));
  CHECK(!d.check());
  REQUIRE(d.size() == 2);
  CHECK(d.num_statics() == 2);
  CHECK(d.samples[1].statics == std::vector<double>{30, 3});
  CHECK(d.samples[1].times == std::vector<double>{8, 12});
}

TEST_CASE("shaping refuses what it cannot do, naming the data", "[data][shaping]") {
  Dataset d = two_channels();
  SeriesShaping too_long;
  too_long.window = 6;
  auto st = shape_series(d, too_long, "s.csv");
  REQUIRE(!st);
  CHECK(st.error().describe() ==
        "s.csv: no series has 6 observations: no window is left (the longest has 5)");
  SeriesShaping all;
  all.target_channels = {"a", "b"};
  st = shape_series(d, all, "s.csv");
  REQUIRE(!st);
  CHECK(st.error().message.find("no channel is left") != std::string::npos);
  SeriesShaping bad_period;
  bad_period.period = -1;
  CHECK(!shape_series(d, bad_period, "s.csv"));
}
