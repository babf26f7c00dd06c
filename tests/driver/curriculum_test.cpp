// `train --curriculum LEN:EPOCHS,...`: the first epochs train on each
// series' first observations (paper 003 App. H.3's growing prefixes). The
// curriculum changes what the early epochs see, is part of the run's
// record (a resumed run continues in its stage and cannot change it), and
// a run trained in pieces equals one trained at once.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
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

TEST_CASE("a curriculum trains the first epochs on prefixes and resumes in its stage",
          "[train][curriculum]") {
  fs::path dir = fresh_test_dir("curriculum_test", "stages");
  write_toy_ts(dir / "toy.ts", 2, 3, 40, 10);
  Run plain = run(base(dir) + " --out " + (dir / "plain").string());
  REQUIRE(plain.exit_code == 0);
  Run staged = run(base(dir) + " --curriculum 4:1 --out " + (dir / "staged").string());
  INFO(staged.out << staged.err);
  REQUIRE(staged.exit_code == 0);
  CHECK(
      staged.out.find("curriculum 4 observations for epochs 1-1, the whole series from epoch 2") !=
      std::string::npos);
  // Epoch 1 saw other inputs; from the same initial parameters.
  CHECK(train_losses(dir / "staged")[0] != train_losses(dir / "plain")[0]);

  Run first = run(base(dir) + " --curriculum 4:1 --until 1 --out " + (dir / "pieces").string());
  REQUIRE(first.exit_code == 0);
  Run changed = run(base(dir) + " --curriculum 5:1 --resume --out " + (dir / "pieces").string());
  CHECK(changed.exit_code == 2);
  CHECK(changed.err.find("--curriculum 5:1 given, the run in") != std::string::npos);
  Run rest = run(base(dir) + " --resume --out " + (dir / "pieces").string());
  INFO(rest.out << rest.err);
  REQUIRE(rest.exit_code == 0);
  CHECK(file_bytes(dir / "pieces/model.safetensors") ==
        file_bytes(dir / "staged/model.safetensors"));
  CHECK(train_losses(dir / "pieces") == train_losses(dir / "staged"));
}

TEST_CASE("a curriculum that never reaches the whole series or is malformed is refused",
          "[train][curriculum]") {
  fs::path dir = fresh_test_dir("curriculum_test", "refused");
  write_toy_ts(dir / "toy.ts", 2, 3, 20, 10);
  Run spans = run(base(dir) + " --curriculum 4:1,6:2 --out " + (dir / "a").string());
  CHECK(spans.exit_code == 2);
  CHECK(spans.err.find("--curriculum spans 3 epochs of --epochs 3") != std::string::npos);
  Run shrinking = run(base(dir) + " --curriculum 6:1,4:1 --out " + (dir / "b").string());
  CHECK(shrinking.exit_code == 2);
  CHECK(shrinking.err.find("the lengths must grow (4 after 6)") != std::string::npos);
  Run malformed = run(base(dir) + " --curriculum 6 --out " + (dir / "c").string());
  CHECK(malformed.exit_code == 2);
  CHECK(malformed.err.find("'6' is not a stage") != std::string::npos);
}
