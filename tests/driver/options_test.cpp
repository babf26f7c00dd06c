// Command-line values are checked while the command line is parsed: a bad
// one is a usage error (exit 2) naming the option, before any data is read
// or any kernel compiled (the driver prints the "model" line once it starts
// compiling the model, so its absence shows no work was done).
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
    CHECK_THAT(r.err, !Catch::Contains("model     "));
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

TEST_CASE("a misspelt option or command gets the nearest as a suggestion", "[cli][options]") {
  Run option = run(kTrain + "--epoch 3");
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.err, Catch::Contains("unknown option '--epoch'; did you mean '--epochs'?"));
  Run command = run("trian " + src("examples/gnode_flipflop.ode"));
  CHECK(command.exit_code == 2);
  CHECK_THAT(command.err, Catch::Contains("unknown command 'trian'; did you mean 'train'?"));
  // Nothing near: no suggestion, the usual message.
  Run far = run(kTrain + "--zzzzzz 3");
  CHECK(far.exit_code == 2);
  CHECK_THAT(far.err, !Catch::Contains("did you mean"));
}

TEST_CASE("short, clear messages for bad values", "[cli][options]") {
  Run lr = run(kTrain + "--lr 0");
  CHECK(lr.exit_code == 2);
  CHECK_THAT(lr.err, Catch::Contains("--lr: '0' is not a finite number > 0"));
  CHECK(lr.err.size() < 200); // no 300-digit bound
  Run fraction = run(kTrain + "--valid-fraction 0.9");
  CHECK(fraction.exit_code == 2);
  CHECK_THAT(fraction.err, Catch::Contains("--valid-fraction"));
  // A fractional dim: one error, and the override is not called unused.
  // (kTrain sets N and H already: a second --set N is refused as given twice.)
  Run dim = run(kTrain + "--set n_bits=4.5");
  CHECK(dim.exit_code == 2);
  CHECK_THAT(dim.err, Catch::Contains("--set n_bits=4.5: a dim must be a positive integer"));
  size_t errors = 0;
  for (size_t at = dim.err.find("error:"); at != std::string::npos;
       at = dim.err.find("error:", at + 1))
    ++errors;
  CHECK(errors == 1);
  CHECK_THAT(dim.err, !Catch::Contains("unused"));
}

TEST_CASE("train help shows flags without a {false} default", "[cli][options]") {
  Run help = run("train --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("--no-progress"));
  CHECK_THAT(help.out, !Catch::Contains("{false}"));
}
