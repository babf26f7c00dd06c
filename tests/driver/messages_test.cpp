// Messages that say exactly what to do: a model that does not fit the data
// gets the --set that fits it (the time channel said), a folder given as a
// model file is named as a folder, a --set dim out of bounds is a usage
// error whether it is 0 or 2^40, and a run whose every step fails in the
// solver says so — not "a non-finite loss" — after printing the epochs it
// did train.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/driver/cli_support.h"
#include "tests/support/toy_ts.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  return fresh_test_dir("messages_test", name);
}

const std::string kFlipflop = src("examples/gnode_flipflop.ode");

} // namespace

// A classifier whose sizes are plain dims (not taken from the data): the
// mismatch with the data is a runtime error that names the exact --set.
const char* kFixedDims = R"(model fixed_dims
dim d_in = 4, classes = 20, hidden = 8
input x : path[d_in] cubic
input y : label[classes]
param zeta : linear[d_in, hidden]
param f    : linear[hidden, hidden * d_in]
param out  : linear[hidden, classes]
state z : [hidden] = zeta(x(t0))
flow z' = reshape(tanh(f(z)), [hidden, d_in]) @ dx(t)
output logits = out(z(T))
loss cross_entropy(logits, y)
solve    rk4 step 1.0
gradient direct
)";

TEST_CASE("a model that does not fit the data gets the exact --set", "[cli][messages]") {
  fs::path dir = fresh_dir("fit");
  write_toy_ts(dir / "toy.ts", 3, 4, 40, 16);
  std::ofstream(dir / "fixed.ode") << kFixedDims;
  const std::string train = "train " + (dir / "fixed.ode").string() + " --data " +
                            (dir / "toy.ts").string() +
                            " --threads 1 --no-progress --epochs 1 --out ";
  Run classes = run(train + (dir / "run1").string());
  CHECK(classes.exit_code == 1);
  CHECK_THAT(classes.err, Catch::Contains("fix: --set classes=4 (the data's classes)"));
  Run channels = run(train + (dir / "run2").string() + " --set classes=4 --set d_in=7");
  CHECK(channels.exit_code == 1);
  CHECK_THAT(channels.err,
             Catch::Contains("fix: --set d_in=4 (the data's 3 channels and a time channel"));
  CHECK_THAT(channels.err, Catch::Contains("--set d_in=3 reads them without time"));
  Run fits = run(train + (dir / "run3").string() + " --set classes=4 --set d_in=4");
  INFO(fits.err);
  CHECK(fits.exit_code == 0);
}

TEST_CASE("a folder given as the model file is named as a folder", "[cli][messages]") {
  fs::path dir = fresh_dir("folder");
  Run r =
      run("train " + dir.string() + " --data synthetic:flipflop --out " + (dir / "run").string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("it is a folder, not a model file"));
  CHECK_THAT(r.err, !Catch::Contains("end of file"));
}

TEST_CASE("a --set dim out of bounds is a usage error at either end", "[cli][messages]") {
  for (const char* value : {"0", "1099511627776"}) {
    Run r = run("check " + kFlipflop + " --set N=" + value);
    INFO(value << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--set N=") + value));
  }
}

TEST_CASE("every step failing in the solver is said as such, after the epochs' table",
          "[cli][messages][train]") {
  fs::path dir = fresh_dir("diverge");
  Run r = run("train " + kFlipflop +
              " --set N=8 --set H=8 --data synthetic:flipflop --batch 50 --threads 1 "
              "--no-progress --epochs 5 --lr 1e30 --out " +
              (dir / "run").string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("failed in the solver"));
  CHECK_THAT(r.err, !Catch::Contains("non-finite loss"));
  CHECK_THAT(r.err, Catch::Contains("--clip"));
  CHECK_THAT(r.err, !Catch::Contains("clip_norm"));
  // The epoch trained before the failure is in the table, as in train.jsonl.
  CHECK_THAT(r.out, Catch::Contains("train loss"));
  CHECK_THAT(r.out, Catch::Contains("best epoch 1"));
}
