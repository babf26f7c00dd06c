// How `train` picks its epoch and when it stops, by default: early stopping
// after 20 epochs without a better validation value (the epoch count an
// upper bound), never with a curriculum or --patience 0; a classifier's
// best epoch is the one of highest validation accuracy, the lowest
// validation loss among equals.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/driver/cli_support.h"
#include "tests/driver/run_files.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

std::string train_toy(const fs::path& dir, const std::string& flags) {
  return "train " + src("tests/driver/tune/tiny_classifier.ode") + " --data " +
         (dir / "toy.ts").string() + " --dtype f64 --batch 10 --no-progress " + flags;
}

// SGD at 1e-300 leaves every parameter as it is (the update underflows):
// no epoch after the first is better, so only the patience ends the run.
const std::string kFrozen = "--optimizer sgd --lr 1e-300 --epochs 30";

} // namespace

TEST_CASE("train stops after 20 epochs without a better validation value by default",
          "[train][patience]") {
  fs::path dir = fresh_test_dir("model_selection_test", "patience");
  write_toy_ts(dir / "toy.ts", 2, 3, 40, 10);
  Run stopped = run(train_toy(dir, kFrozen + " --out " + (dir / "default").string()));
  INFO(stopped.out << stopped.err);
  REQUIRE(stopped.exit_code == 0);
  // Best epoch 1; stopped once more than 20 epochs went without improvement
  // (the reference code's `epoch > best_epoch + patience`).
  CHECK(epoch_rows(dir / "default").size() == 22);
  CHECK(stopped.out.find("stopped early: no better valid accuracy in the 21 epochs after epoch 1 "
                         "(--patience 20") != std::string::npos);

  Run every = run(train_toy(dir, kFrozen + " --patience 0 --out " + (dir / "every").string()));
  REQUIRE(every.exit_code == 0);
  CHECK(epoch_rows(dir / "every").size() == 30);
  CHECK(every.out.find("stopped early") == std::string::npos);

  // A curriculum's early stages are not judged on the whole series.
  Run staged =
      run(train_toy(dir, kFrozen + " --curriculum 4:2 --out " + (dir / "staged").string()));
  REQUIRE(staged.exit_code == 0);
  CHECK(epoch_rows(dir / "staged").size() == 30);
}

TEST_CASE("a classifier keeps the epoch of best validation accuracy and the lowest loss among "
          "equals",
          "[train][select]") {
  fs::path dir = fresh_test_dir("model_selection_test", "select");
  write_toy_ts(dir / "toy.ts", 2, 3, 40, 10);
  const fs::path out = dir / "run";
  Run r = run(train_toy(dir, "--lr 0.02 --epochs 15 --patience 0 --out " + out.string()));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<nlohmann::json> epochs = epoch_rows(out);
  REQUIRE(epochs.size() == 15);
  double best_accuracy = -1;
  double best_loss = 0;
  int64_t expected = -1;
  for (const nlohmann::json& e : epochs) {
    const double accuracy = e.at("valid_metric").get<double>();
    const double loss = e.at("valid_loss").get<double>();
    if (accuracy > best_accuracy || (accuracy == best_accuracy && loss < best_loss)) {
      best_accuracy = accuracy;
      best_loss = loss;
      expected = e.at("epoch").get<int64_t>();
    }
  }
  const nlohmann::json summary = nlohmann::json::parse(file_bytes(out / "summary.json"));
  CHECK(summary.at("best_epoch").get<int64_t>() == expected);
  // The run records the rule, so a resumed or re-evaluated run keeps it.
  const nlohmann::json record = nlohmann::json::parse(file_bytes(out / "run.json"));
  CHECK(record.dump().find(R"("--select":"auto")") != std::string::npos);

  const fs::path by_loss = dir / "by_loss";
  REQUIRE(run(train_toy(dir, "--lr 0.02 --epochs 15 --patience 0 --select loss --out " +
                                 by_loss.string()))
              .exit_code == 0);
  double lowest = 1e300;
  int64_t lowest_epoch = -1;
  for (const nlohmann::json& e : epoch_rows(by_loss))
    if (e.at("valid_loss").get<double>() < lowest) {
      lowest = e.at("valid_loss").get<double>();
      lowest_epoch = e.at("epoch").get<int64_t>();
    }
  CHECK(nlohmann::json::parse(file_bytes(by_loss / "summary.json")).at("best_epoch") ==
        lowest_epoch);
}
