// Resolving --data arguments: the generated task, real folders when the
// shared data is present, the time-channel rule (`with time`, the time
// rescaled to the mean training span), unit increments, and clear errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <string>

#include "runtime/data/data_dir.h"
#include "runtime/data/open_data.h"
#include "tests/support/temp_dir.h"
#include "tests/support/toy_ts.h"

using namespace plastic::rt;

TEST_CASE("synthetic:flipflop gives the paper's 500/100 split", "[open_data]") {
  DataOptions o;
  auto r = open_data("synthetic:flipflop", o);
  REQUIRE(r.ok());
  CHECK(r->train.size() == 500);
  CHECK(r->validation.size() == 100);
  CHECK(r->test.size() == 0);
  CHECK(r->train.num_channels() == 3);
  auto five = open_data("synthetic:flipflop:5", o);
  REQUIRE(five.ok());
  CHECK(five->train.num_channels() == 5);
  // The model wants time as an extra channel: prepended.
  o.model_channels = 4;
  auto timed = open_data("synthetic:flipflop", o);
  REQUIRE(timed.ok());
  CHECK(timed->train.num_channels() == 4);
  CHECK(timed->train.channels[0].kind == ChannelKind::Time);
}

TEST_CASE("synthetic:flipflop-fixed is the fixed-amplitude task of App. F.1", "[open_data]") {
  DataOptions o;
  auto fixed = open_data("synthetic:flipflop-fixed:2", o);
  REQUIRE(fixed.ok());
  CHECK(fixed->train.size() == 500);
  CHECK(fixed->train.num_channels() == 2);
  CHECK_THAT(fixed->description, Catch::Contains("2-bit flip-flop"));
  CHECK_THAT(fixed->description, !Catch::Contains("variable amplitude"));
  auto variable = open_data("synthetic:flipflop", o);
  REQUIRE(variable.ok());
  CHECK_THAT(variable->description, Catch::Contains("variable amplitude"));
}

TEST_CASE("bad data arguments say what is expected", "[open_data]") {
  DataOptions o;
  auto missing = open_data("/nonexistent/data.ts", o);
  REQUIRE(!missing.ok());
  CHECK_THAT(missing.error().describe(), Catch::Contains("no such file"));
  auto bits = open_data("synthetic:flipflop:x", o);
  REQUIRE(!bits.ok());
  CHECK_THAT(bits.error().describe(), Catch::Contains("1..64"));
  auto fixed_bits = open_data("synthetic:flipflop-fixed:0", o);
  REQUIRE(!fixed_bits.ok());
  CHECK_THAT(fixed_bits.error().describe(), Catch::Contains("1..64"));
  auto unknown = open_data("synthetic:spirals", o);
  REQUIRE(!unknown.ok());
  CHECK_THAT(unknown.error().describe(), Catch::Contains("known: synthetic:flipflop"));
  auto format = open_data(PLASTIC_SOURCE_DIR "/README.md", o);
  REQUIRE(!format.ok());
  CHECK_THAT(format.error().describe(), Catch::Contains("unknown data format"));
}

TEST_CASE("a UEA folder gives the given test file and a validation split", "[open_data]") {
  auto dir = find_data_dir(PLASTIC_SOURCE_DIR);
  if (!dir) {
    WARN("shared data not found (../shared/data or $PLASTIC_DATA): skipped");
    return;
  }
  DataOptions o;
  o.model_channels = 4; // 3 channels + time
  auto r = open_data((*dir / "uea/CharacterTrajectories").string(), o);
  REQUIRE(r.ok());
  CHECK(r->test.size() == 428);
  CHECK(r->train.size() + r->validation.size() == 1001);
  CHECK(r->validation.size() == Approx(150).margin(5));
  CHECK(r->train.num_channels() == 4);
  CHECK(r->train.classes.size() == 20);
}

TEST_CASE("whole keeps every sample for training and returns the normaliser", "[open_data]") {
  auto dir = find_data_dir(PLASTIC_SOURCE_DIR);
  if (!dir) {
    WARN("shared data not found (../shared/data or $PLASTIC_DATA): skipped");
    return;
  }
  DataOptions o;
  o.whole = true;
  auto r =
      open_data((*dir / "uea/CharacterTrajectories/CharacterTrajectories_TEST.ts").string(), o);
  REQUIRE(r.ok());
  CHECK(r->train.size() == 428);
  CHECK(r->validation.size() == 0);
  CHECK(r->test.size() == 0);
  CHECK(r->normaliser.has_value());
}

TEST_CASE("a path `with time` gets the time channel, rescaled, or a clear error", "[open_data]") {
  plastic::rt::test::TempDir tmp;
  // 3 channels, 2 classes, 20 series of 11 steps (times 0..10: span 10).
  plastic::test::write_toy_ts(tmp / "toy.ts", 3, 2, 20, 11);
  DataOptions o;
  o.model_channels = 4;
  o.model_time_channel = true;
  auto r = open_data((tmp / "toy.ts").string(), o);
  REQUIRE(r.ok());
  REQUIRE(r->train.channels[0].kind == ChannelKind::Time);
  REQUIRE(r->normaliser.has_value());
  CHECK(r->normaliser->time_scale == Approx(0.1));
  const Sample& s = r->test.samples.at(0);
  CHECK(s.values[0] == 0);
  CHECK(s.values[10 * 4] == Approx(1.0)); // the last observation: t = 10 -> 1
  CHECK_THAT(r->description, Catch::Contains("time / 10"));

  // The path declares channels the data cannot fill: the count is named.
  o.model_channels = 5;
  auto wrong = open_data((tmp / "toy.ts").string(), o);
  REQUIRE(!wrong.ok());
  CHECK_THAT(wrong.error().describe(),
             Catch::Contains("the data have 3 channels, so the model's path `with time` needs "
                             "1 + 3 = 4 channels; it declares 5"));
}

TEST_CASE("unit_increments: the training split's increments have unit RMS", "[open_data]") {
  plastic::rt::test::TempDir tmp;
  plastic::test::write_toy_ts(tmp / "toy.ts", 2, 2, 40, 30);
  DataOptions o;
  o.unit_increments = true;
  auto r = open_data((tmp / "toy.ts").string(), o);
  REQUIRE(r.ok());
  REQUIRE(r->normaliser.has_value());
  CHECK(r->normaliser->increment_rms != 1);
  double squares = 0;
  std::size_t n = 0;
  for (const Sample& s : r->train.samples)
    for (std::size_t i = 0; i + 1 < s.length(); ++i)
      for (std::size_t k = 0; k < 2; ++k) {
        const double d = s.values[(i + 1) * 2 + k] - s.values[i * 2 + k];
        squares += d * d, ++n;
      }
  CHECK(std::sqrt(squares / static_cast<double>(n)) == Approx(1).epsilon(1e-12));
  CHECK_THAT(r->description, Catch::Contains("increments to unit RMS"));
}

namespace {

// A wide CSV of `series` series (id column "id") of `rows` rows each, one
// channel "x".
std::filesystem::path write_series_csv(const plastic::rt::test::TempDir& dir, int series,
                                       int rows) {
  const auto path = dir / "series.csv";
  std::ofstream f(path);
  f << "id,x\n";
  for (int s = 0; s < series; ++s)
    for (int r = 0; r < rows; ++r)
      f << "s" << s << "," << std::sin(0.1 * r + s) << "\n";
  return path;
}

// The series (the id before "@") of every window in `part`.
std::set<std::string> series_of(const Dataset& part) {
  std::set<std::string> out;
  for (const Sample& s : part.samples)
    out.insert(s.id.substr(0, s.id.find('@')));
  return out;
}

} // namespace

TEST_CASE("windows of many series are split by series, never one series in two parts",
          "[open_data][window]") {
  plastic::rt::test::TempDir dir;
  const auto csv = write_series_csv(dir, 20, 40);
  DataOptions o;
  o.csv.id_column = "id";
  o.shaping.window = 10;
  auto r = open_data(csv.string(), o);
  REQUIRE(r.ok());
  const auto train = series_of(r->train), valid = series_of(r->validation),
             test = series_of(r->test);
  CHECK(train.size() + valid.size() + test.size() == 20); // disjoint and complete
  CHECK(r->train.size() + r->validation.size() + r->test.size() == 80);
  CHECK(r->train.size() == 4 * train.size()); // every window of a series in its part
  CHECK(!valid.empty());
  CHECK(!test.empty());
  CHECK_THAT(r->description,
             Catch::Contains("by series: each of the 20 series' windows in one part"));

  // K folds: the validation fold and the test part are whole series too.
  o.folds = 4;
  o.fold = 2;
  auto folded = open_data(csv.string(), o);
  REQUIRE(folded.ok());
  std::set<std::string> seen;
  for (const Dataset* part : {&folded->train, &folded->validation, &folded->test})
    for (const std::string& s : series_of(*part))
      CHECK(seen.insert(s).second);
  CHECK(seen.size() == 20);
}

TEST_CASE("the windows of one recording are split window by window, and the line says so",
          "[open_data][window]") {
  plastic::rt::test::TempDir dir;
  const auto csv = write_series_csv(dir, 1, 200);
  DataOptions o;
  o.csv.id_column = "id";
  o.shaping.window = 10;
  auto r = open_data(csv.string(), o);
  REQUIRE(r.ok());
  CHECK(r->train.size() + r->validation.size() + r->test.size() == 20);
  CHECK(r->test.size() > 0);
  CHECK_THAT(r->description, Catch::Contains("window by window (one series)"));
}
