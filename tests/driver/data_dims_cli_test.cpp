// A new user's own UEA folder with the zoo's classification model, as the
// command line sees it: no --set for the channels, the classes or the time
// channel (the model takes them from the data and says what it inferred),
// a --set that contradicts the data is refused with the exact fix, and the
// run's data record keeps the time and increment normalisation so that
// eval reads new data the same way.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

// A UEA folder with 3 channels and 4 classes; lengths 12 and 24.
fs::path toy_uea(const std::string& name) {
  const fs::path dir = fresh_test_dir("data_dims_test", name) / "Toy";
  fs::create_directories(dir);
  write_toy_ts(dir / "Toy_TRAIN.ts", 3, 4, 40, 12);
  write_toy_ts(dir / "Toy_TEST.ts", 3, 4, 16, 24, 0, 777);
  return dir;
}

// The CharacterTrajectories Delta CDE, made small (its dims from the data
// are left alone).
const std::string kModel = "examples/fwp_delta_cde_character.ode --set heads=2 --set d_head=4 "
                           "--set d_ff=8";

std::string train_args(const fs::path& data, const fs::path& out, const std::string& extra = "") {
  return "train " + src(kModel) + " --data " + data.string() +
         " --epochs 1 --batch 16 --threads 2 --no-progress --out " + out.string() + " " + extra;
}

} // namespace

TEST_CASE("a model with dims from the data trains on a UEA folder with no --set",
          "[train][data_dims]") {
  const fs::path data = toy_uea("plain");
  const fs::path out = data.parent_path() / "run";
  Run r = run(train_args(data, out));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("d_data = 3 (from the data: 3 channels)"));
  CHECK_THAT(r.err, Catch::Contains("classes = 4 (from the data: 4 classes)"));
  CHECK_THAT(r.out + r.err, Catch::Contains("time channel prepended"));
  CHECK_THAT(r.out + r.err, Catch::Contains("increments to unit RMS"));

  // The record of the run holds the normalisation of the training split.
  std::ifstream in(out / "data.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["time_channel"] == true);
  CHECK(j["raw_channels"] == 3);
  // Every training series spans 0..11: time is divided by 11.
  CHECK(j["normaliser"]["time_scale"].get<double>() == Approx(1.0 / 11));
  CHECK(j["normaliser"]["increment_rms"].get<double>() != 1.0);

  // eval reads the test file (twice as long) with the training statistics.
  Run e = run("eval " + src(kModel) + " --data " + data.string() + " --parameters " + out.string() +
              " --threads 2");
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  CHECK_THAT(e.out, Catch::Contains("(16 samples)"));
}

TEST_CASE("a --set that contradicts the data gives the exact fix", "[train][data_dims]") {
  const fs::path data = toy_uea("contradict");
  Run r = run(train_args(data, data.parent_path() / "run", "--set classes=5"));
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--set classes=5 contradicts the data"));
  CHECK_THAT(r.err, Catch::Contains("4 classes"));
  CHECK_THAT(r.err, Catch::Contains("leave out --set classes, or give --set classes=4"));
  CHECK_FALSE(fs::exists(data.parent_path() / "run" / "model.safetensors"));

  // Agreeing with the data is fine.
  Run same = run(train_args(data, data.parent_path() / "run2", "--set classes=4"));
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
}

TEST_CASE("without data a from-data dim takes its else value", "[data_dims]") {
  Run r = run("check " + src("examples/ncde_character.ode") + " --json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"d_data\""));
}
