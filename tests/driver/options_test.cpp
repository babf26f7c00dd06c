// Command-line values are checked while the command line is parsed: a bad
// one is a usage error (exit 2) naming the option, before any data is read
// or any kernel compiled (the driver prints "compiled in" once it has
// compiled the model, so its absence shows no work was done).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/driver/cli_support.h"

using namespace plastic::test;

namespace {

const std::string kTrain = "train " + src("examples/gnode_flipflop.ode") +
                           " --set N=8 --set H=8 --data synthetic:flipflop --batch 50 --threads 1 "
                           "--no-progress --out " +
                           std::string(PLASTIC_BINARY_DIR) + "/options_test.never ";

} // namespace

TEST_CASE("bad option values are usage errors before any work", "[cli][options]") {
  struct Case {
    std::string args, option;
  };
  const std::vector<Case> cases = {
      {"--clip nan", "--clip"},
      {"--clip -1", "--clip"},
      {"--weight-decay nan", "--weight-decay"},
      {"--momentum inf", "--momentum"},
      {"--patience -3", "--patience"},
      {"--seed -1", "--seed"},
      {"--epochs 1e20", "--epochs"},
      {"--epochs 0", "--epochs"},
      {"--lr nan", "--lr"},
      {"--lr -1", "--lr"},
      {"--batch 0", "--batch"},
      {"--threads -2", "--threads"},
      {"--out ''", "--out"},
      {"--set N=nan", "--set"},
  };
  for (const Case& c : cases) {
    Run r = run(kTrain + c.args);
    INFO(c.args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.option));
    CHECK_THAT(r.err, !Catch::Contains("compiled in"));
  }
}

TEST_CASE("eval and predict check their values too", "[cli][options]") {
  const std::string eval =
      "eval " + src("examples/gnode_flipflop.ode") + " --data synthetic:flipflop --parameters ";
  Run r = run(eval + "''");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--parameters"));
  r = run("predict " + src("examples/gnode_flipflop.ode") +
          " --data synthetic:flipflop --parameters x --output ''");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--output"));
}

TEST_CASE("an unknown command is named as such", "[cli][options]") {
  Run r = run("frobnicate model.ode");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown command 'frobnicate'"));
  CHECK_THAT(r.err, Catch::Contains("train"));
}
