// `train --folds K`: K runs, one per fold, each a complete run folder that
// eval takes with no flag repeated; a summary with mean ± std over the
// folds; the validation parts cover the training data once; a
// cross-validation continues with --resume and is never mixed with a
// plain run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

// A small neural CDE classifier on a toy .ts file (tests/support/toy_ts.h).
const std::string kNcde =
    src("examples/ncde_character.ode") + " --set classes=3 --set hidden=8 --set d_f=16";

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

} // namespace

TEST_CASE("train --folds 3 trains one run per fold and reports mean and std", "[train][folds]") {
  fs::path dir = fresh_test_dir("cross_validation_test", "three");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  const std::string train = "train " + kNcde + " --data " + (dir / "toy.ts").string() +
                            " --threads 1 --no-progress --epochs 1 --out " + (dir / "cv").string();
  Run t = run(train + " --folds 3");
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  // 60 samples: 9 for test (15 %, the same for every fold), 51 in 3 folds of 17.
  CHECK_THAT(t.out, Catch::Contains("34 training, 17 validation, 9 test samples"));
  CHECK_THAT(t.out, Catch::Contains("rest in 3 folds (fold 2 validates)"));
  CHECK_THAT(t.out, Catch::Contains("cross-validation over 3 folds"));
  const nlohmann::json summary = read_json(dir / "cv/folds.json");
  CHECK(summary["folds"] == 3);
  CHECK(summary["finished"] == true);
  REQUIRE(summary["runs"].size() == 3);
  double sum = 0, sum_sq = 0;
  for (int k = 1; k <= 3; ++k) {
    const fs::path fold = dir / ("cv/fold-" + std::to_string(k));
    CHECK(fs::exists(fold / "model.safetensors"));
    const nlohmann::json one = read_json(fold / "summary.json");
    CHECK(one["validation"]["samples"] == 17);
    CHECK(one["test"]["samples"] == 9);
    const double acc = one["validation"]["accuracy"].get<double>();
    CHECK(summary["runs"][k - 1]["validation"]["accuracy"].get<double>() == acc);
    sum += acc;
    sum_sq += acc * acc;
    // Each fold's record remembers its fold: eval needs no flag repeated
    // and validates on that fold's 17 samples.
    const nlohmann::json record = read_json(fold / "run.json");
    CHECK(record["options"]["--fold"] == k);
    CHECK(record["options"]["--folds"] == 3);
    Run e = run("eval " + kNcde + " --split validation --parameters " + fold.string());
    INFO(e.out << e.err);
    CHECK(e.exit_code == 0);
    CHECK_THAT(e.out, Catch::Contains("(17 samples)"));
  }
  const double mean = sum / 3, sd = std::sqrt((sum_sq - 3 * mean * mean) / 2);
  CHECK(summary["validation"]["accuracy"]["mean"].get<double>() == Approx(mean).epsilon(1e-12));
  CHECK(summary["validation"]["accuracy"]["std"].get<double>() ==
        Approx(sd).epsilon(1e-9).margin(1e-12));

  // The folder holds a cross-validation: eval says which run to give.
  Run e = run("eval " + kNcde + " --parameters " + (dir / "cv").string());
  CHECK(e.exit_code == 2);
  CHECK_THAT(e.err, Catch::Contains("holds a cross-validation"));
  CHECK_THAT(e.err, Catch::Contains("fold-1"));
  // A plain run over it is refused without --force, as over any run.
  Run plain = run(train);
  CHECK(plain.exit_code == 2);
  CHECK_THAT(plain.err, Catch::Contains("already holds a run"));
  // --resume of a finished cross-validation keeps every fold.
  Run again = run(train + " --resume");
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("fold 3 of 3: finished earlier, kept"));
  CHECK(read_json(dir / "cv/folds.json")["validation"] == summary["validation"]);
}

TEST_CASE("train refuses --folds where it cannot apply", "[train][folds]") {
  fs::path dir = fresh_test_dir("cross_validation_test", "refused");
  write_toy_ts(dir / "toy.ts", 3, 3, 60, 16);
  const std::string train = "train " + kNcde + " --data " + (dir / "toy.ts").string() +
                            " --threads 1 --no-progress --epochs 1 --out " + (dir / "cv").string();
  Run fraction = run(train + " --folds 3 --valid-fraction 0.2");
  CHECK(fraction.exit_code == 2);
  CHECK_THAT(fraction.err, Catch::Contains("leave out --valid-fraction"));
  Run beyond = run(train + " --folds 3 --fold 4");
  CHECK(beyond.exit_code == 2);
  CHECK_THAT(beyond.err, Catch::Contains("--fold 4: --folds 3 numbers its folds 1 to 3"));
  Run alone = run(train + " --fold 2");
  CHECK(alone.exit_code == 2);
  Run too_many = run(train + " --folds 60");
  CHECK(too_many.exit_code == 1);
  CHECK_THAT(too_many.err, Catch::Contains("60 folds need at least 60 samples"));
  CHECK_THAT(too_many.err, !Catch::Contains("--resume"));
  Run synthetic = run("train " + src("examples/gnode_flipflop.ode") +
                      " --set N=8 --set H=8 --data synthetic:flipflop --threads 1 "
                      "--no-progress --epochs 1 --folds 3 --out " +
                      (dir / "ff").string());
  CHECK(synthetic.exit_code == 2);
  CHECK_THAT(synthetic.err, Catch::Contains("--folds needs a data set to divide"));
  // Refused before anything was written, and nothing to resume.
  CHECK_THAT(synthetic.err, !Catch::Contains("--resume"));
  CHECK_FALSE(fs::exists(dir / "ff"));
  CHECK_FALSE(fs::exists(dir / "cv"));
  // One fold alone trains in --out, validated on that fold.
  Run one = run(train + "-one --folds 3 --fold 2");
  INFO(one.out << one.err);
  CHECK(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::Contains("(fold 2 validates)"));
  CHECK(fs::exists(dir / "cv-one/model.safetensors"));
}
