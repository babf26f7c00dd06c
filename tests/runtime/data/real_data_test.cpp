// The readers on the real recordings in ../shared/data (or $PLASTIC_DATA):
// sizes, channels, lengths and classes as documented in its README, a few
// values checked against the files, and the Kidger et al. sepsis pipeline end
// to end. Each case skips with a warning when the data is absent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "runtime/data/csv_reader.h"
#include "runtime/data/normalise.h"
#include "runtime/data/npy.h"
#include "runtime/data/physionet.h"
#include "runtime/data/split.h"
#include "runtime/data/transforms.h"
#include "runtime/data/ts_reader.h"
#include "tests/runtime/data/data_test_support.h"
#include "tests/support/scoped_env.h"

using namespace plastic::rt;
namespace fs = std::filesystem;

namespace {

std::optional<fs::path> data_or_skip() {
  auto dir = test::real_data();
  if (!dir)
    WARN("real data not found (set PLASTIC_DATA or put it at <repo>/../shared/data): skipped");
  return dir;
}

Dataset must(plastic::Result<Dataset, DataError> r) {
  if (!r) FAIL(r.error().describe());
  REQUIRE(!r->check());
  return std::move(r).value();
}

struct UeaExpect {
  const char* name;
  std::size_t train, test, channels, min_len, max_len, classes;
};

void check_uea(const fs::path& root, const UeaExpect& e) {
  INFO(e.name);
  const fs::path dir = root / "uea" / e.name;
  const Dataset train = must(read_ts(dir / (std::string(e.name) + "_TRAIN.ts")));
  const Dataset test = must(read_ts(dir / (std::string(e.name) + "_TEST.ts")));
  CHECK(train.name == e.name);
  CHECK(train.size() == e.train);
  CHECK(test.size() == e.test);
  CHECK(train.num_channels() == e.channels);
  CHECK(test.num_channels() == e.channels);
  CHECK(train.classes.size() == e.classes);
  CHECK(test.classes == train.classes);
  CHECK(std::min(train.min_length(), test.min_length()) == e.min_len);
  CHECK(std::max(train.max_length(), test.max_length()) == e.max_len);
  // Every class occurs in the training file.
  const std::vector<int> y = train.labels();
  CHECK(std::set<int>(y.begin(), y.end()).size() == e.classes);
}

} // namespace

TEST_CASE("real data: UEA .ts files", "[data][real]") {
  const auto root = data_or_skip();
  if (!root) return;
  check_uea(*root, {"CharacterTrajectories", 1001, 428, 3, 61, 182, 20});
  check_uea(*root, {"JapaneseVowels", 270, 370, 12, 7, 29, 9});
  check_uea(*root, {"StandWalkJump", 12, 15, 4, 2500, 2500, 3});
  // First sample of CharacterTrajectories_TRAIN.ts (line 11): starts 0.44311419, 0.47176486; class
  // 'n'.
  const Dataset ct =
      must(read_ts(*root / "uea/CharacterTrajectories/CharacterTrajectories_TRAIN.ts"));
  CHECK(ct.classes[0] == "a");
  CHECK(ct.value(0, 0, 0) == 0.44311419);
  CHECK(ct.value(0, 1, 0) == 0.47176486);
  CHECK(ct.classes[static_cast<std::size_t>(ct.samples[0].label)] == "n");
}

TEST_CASE("real data: PhysioNet 2019 set B part", "[data][real][physionet]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto extracted =
      test::extracted(*root / "physionet2019/training_setB_partial.tar.xz", "physionet2019");
  REQUIRE(extracted);
  const fs::path dir = *extracted / "training_setB";
  const Dataset all = must(read_physionet2019(dir));
  CHECK(all.size() == 9271);
  CHECK(all.samples.front().id == "p100001");
  CHECK(all.samples.back().id == "p109271");
  const std::vector<int> y = all.labels();
  CHECK(std::count(y.begin(), y.end(), 1) == 516);
  CHECK(all.num_channels() == 34);
  CHECK(all.min_length() == 8);
  CHECK(all.max_length() == 336);
  // p100001.psv, second row: HR 93, O2Sat 92.5 at ICULOS 2; Age 73, Gender 1, Unit1 1, Unit2 0,
  // HospAdmTime -214.64.
  CHECK(all.samples[0].times[1] == 2);
  CHECK(all.value(0, 1, 0) == 93);
  CHECK(all.value(0, 1, 1) == 92.5);
  CHECK(std::isnan(all.value(0, 0, 0)));
  CHECK(all.samples[0].statics == std::vector<double>{73, 1, 1, 0, -214.64});
}

TEST_CASE("real data: PhysioNet 2019, Kidger et al.'s OI pipeline",
          "[data][real][physionet][slow]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto extracted =
      test::extracted(*root / "physionet2019/training_setB_partial.tar.xz", "physionet2019");
  REQUIRE(extracted);
  const fs::path dir = *extracted / "training_setB";
  // Kidger et al.'s OI pipeline: 72 hours, split 70/15/15, train-only
  // statistics, then [time, intensity, original] = 1 + 2 * 34 channels.
  Dataset oi = must(read_physionet2019(dir, PhysioNetOptions::kidger2020(true)));
  CHECK(oi.max_length() == 72);
  const std::vector<int> labels = oi.labels();
  const SplitIndices s = stratified_split(labels, 0);
  Dataset train = subset(oi, s.train), val = subset(oi, s.validation), test = subset(oi, s.test);
  const double septic = static_cast<double>(std::count(labels.begin(), labels.end(), 1));
  const auto septic_in = [](const Dataset& d) {
    const std::vector<int> l = d.labels();
    return static_cast<double>(std::count(l.begin(), l.end(), 1));
  };
  CHECK(std::abs(septic_in(train) - 0.7 * septic) < 1);
  CHECK(std::abs(septic_in(val) - 0.15 * septic) < 1);
  const Normaliser n = fit_normaliser(train);
  REQUIRE(n.apply(train).ok());
  REQUIRE(n.apply(val).ok());
  REQUIRE(n.apply(test).ok());
  add_time_channel(train);
  CHECK(train.num_channels() == 69);
  CHECK(train.num_statics() == 7);
  CHECK(!train.check());
}

TEST_CASE("real data: UCI air quality CSV", "[data][real][csv]") {
  const auto root = data_or_skip();
  if (!root) return;
  CsvOptions o;
  o.date_column = "Date";
  o.time_column = "Time";
  o.missing_value = -200;
  const Dataset d = must(read_csv(*root / "airquality/AirQualityUCI.csv", o));
  REQUIRE(d.size() == 1);
  const Sample& s = d.samples[0];
  CHECK(s.length() == 9357);
  CHECK(d.num_channels() == 13);
  CHECK(d.channels[0].name == "CO_GT");
  CHECK(d.channels[12].name == "AH");
  // Hourly from 10/03/2004 18:00 (day 12487) to 04/04/2005 14:00 (day 12877), no gaps.
  CHECK(s.times.front() == 12487 * 24 + 18);
  CHECK(s.times.back() == 12877 * 24 + 14);
  CHECK(s.times.back() - s.times.front() == 9356);
  CHECK(d.value(0, 0, 0) == 2.6);
  CHECK(d.value(0, 0, 2) == 150);
  CHECK(d.value(0, 9356, 12) == 0.5028);
  CHECK(std::isnan(d.value(0, 9356, 2))); // -200 on the last row
}

TEST_CASE("real data: cascaded tanks CSV", "[data][real][csv]") {
  const auto root = data_or_skip();
  if (!root) return;
  CsvOptions o;
  o.channels = {"uEst"};
  o.targets = {"yEst"};
  const Dataset d = must(read_csv(*root / "cascaded_tanks/dataBenchmark.csv", o));
  REQUIRE(d.size() == 1);
  CHECK(d.samples[0].length() == 1024);
  CHECK(d.value(0, 0, 0) == 3.2567);
  CHECK(d.samples[0].target[0] == 5.205);
  CHECK(d.samples[0].target[1023] == 3.6831);
  const Dataset all = must(read_csv(*root / "cascaded_tanks/dataBenchmark.csv", {}));
  CHECK(all.num_channels() == 5); // the unnamed trailing column is not a channel
  CHECK(all.value(0, 0, 4) == 4);
  CHECK(std::isnan(all.value(0, 1, 4)));
}

TEST_CASE("real data: Walker2d rollouts (.npy, float32)", "[data][real][npy]") {
  const auto root = data_or_skip();
  if (!root) return;
  const auto extracted = test::extracted(*root / "walker2d/rollouts_float32.tar.xz", "walker2d");
  REQUIRE(extracted);
  const fs::path dir = *extracted / "walker2d";
  const auto one = read_npy(dir / "rollout_000.npy");
  if (!one) FAIL(one.error().describe());
  CHECK(one->dtype == NpyDtype::F32);
  REQUIRE(one->shape.size() == 2);
  CHECK(one->shape[1] == 17);
  const Dataset d = must(read_npy_series(dir));
  CHECK(d.size() == 400);
  CHECK(d.num_channels() == 17);
  CHECK(d.min_length() == 131);
  CHECK(d.max_length() == 1000);
  CHECK(d.samples[0].id == "rollout_000");
  CHECK(d.samples[399].id == "rollout_399");
}

TEST_CASE("find_data_dir: $PLASTIC_DATA first, then <repo>/../shared/data", "[data]") {
  test::TempDir dir;
  plastic::test::ScopedEnv env("PLASTIC_DATA", dir.path().string());
  CHECK(find_data_dir("/nonexistent") == dir.path());
  ::setenv("PLASTIC_DATA", (dir.path() / "missing").c_str(), 1);
  CHECK(find_data_dir(dir.path() / "nowhere") == std::nullopt);
  fs::create_directories(dir.path() / "shared" / "data");
  fs::create_directories(dir.path() / "repo");
  const auto found = find_data_dir(dir.path() / "repo");
  REQUIRE(found);
  CHECK(found->string() == (dir.path() / "shared" / "data").string());
}
