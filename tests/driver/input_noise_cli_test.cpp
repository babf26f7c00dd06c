// `train --input-noise SIGMA`: each epoch trains on noisy copies of the
// training series. The noise changes what is trained on, is part of the
// run's record, and a run trained in pieces equals one trained at once.
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

std::string base(const fs::path& dir) {
  return "train " + src("tests/driver/tune/tiny_classifier.ode") + " --data " +
         (dir / "toy.ts").string() + " --dtype f64 --batch 10 --epochs 3 --no-progress";
}

} // namespace

TEST_CASE("input noise trains on other series and resumes bit for bit", "[train][input-noise]") {
  fs::path dir = fresh_test_dir("input_noise_cli_test", "resume");
  write_toy_ts(dir / "toy.ts", 2, 3, 40, 10);
  REQUIRE(run(base(dir) + " --out " + (dir / "clean").string()).exit_code == 0);
  Run noisy = run(base(dir) + " --input-noise 0.5 --out " + (dir / "noisy").string());
  INFO(noisy.out << noisy.err);
  REQUIRE(noisy.exit_code == 0);
  CHECK(noisy.out.find("noise     N(0, 0.5^2) on the training series' measured values") !=
        std::string::npos);
  // The same initial parameters and batches, other inputs.
  CHECK(train_losses(dir / "noisy")[0] != train_losses(dir / "clean")[0]);

  REQUIRE(run(base(dir) + " --input-noise 0.5 --until 1 --out " + (dir / "pieces").string())
              .exit_code == 0);
  Run changed = run(base(dir) + " --input-noise 0.2 --resume --out " + (dir / "pieces").string());
  CHECK(changed.exit_code == 2);
  CHECK(changed.err.find("--input-noise") != std::string::npos);
  Run rest = run(base(dir) + " --resume --out " + (dir / "pieces").string());
  INFO(rest.out << rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK(train_losses(dir / "pieces") == train_losses(dir / "noisy"));
  CHECK(file_bytes(dir / "pieces/model.safetensors") ==
        file_bytes(dir / "noisy/model.safetensors"));
}

TEST_CASE("input noise with a curriculum or below zero is refused", "[train][input-noise]") {
  fs::path dir = fresh_test_dir("input_noise_cli_test", "refused");
  write_toy_ts(dir / "toy.ts", 2, 3, 20, 10);
  Run staged = run(base(dir) + " --input-noise 0.1 --curriculum 4:1 --out " + (dir / "a").string());
  CHECK(staged.exit_code == 2);
  CHECK(staged.err.find("--input-noise with --curriculum is not supported") != std::string::npos);
  Run negative = run(base(dir) + " --input-noise -1 --out " + (dir / "b").string());
  CHECK(negative.exit_code == 2);
  CHECK(negative.err.find("--input-noise") != std::string::npos);
}
