// Messages that say exactly what to do: a model that does not fit the data
// gets the --set that fits it (the time channel said), a folder given as a
// model file is named as a folder, a --set dim out of bounds is a usage
// error whether it is 0 or 2^40, and a run whose every step fails in the
// solver says so — not "a non-finite loss" — after printing the epochs it
// did train, a solve stopped by max_steps says so with its advice, and eval
// in another dtype than the run's names both dtypes (issue 19, defect 11).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
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

TEST_CASE("a solve stopped by max_steps is said as such with its advice",
          "[cli][messages][train]") {
  // It was summarised as a "non-finite loss" (issue 19, defect 11).
  fs::path dir = fresh_dir("max_steps");
  std::ifstream in(kFlipflop);
  std::string model((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string fixed = "solve    euler step 0.01";
  REQUIRE(model.find(fixed) != std::string::npos);
  model.replace(model.find(fixed), fixed.size(), "solve    dopri5 rtol 1e-6 atol 1e-8 max_steps 3");
  std::ofstream(dir / "m.ode") << model;
  Run r = run("train " + (dir / "m.ode").string() +
              " --set N=8 --set H=8 --data synthetic:flipflop --batch 50 --threads 1 "
              "--no-progress --epochs 2 --out " +
              (dir / "run").string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("failed in the solver"));
  CHECK_THAT(r.err, Catch::Contains("max_steps exceeded"));
  CHECK_THAT(r.err, Catch::Contains("raise max_steps"));
  CHECK_THAT(r.err, !Catch::Contains("non-finite loss"));
}

TEST_CASE("eval in another dtype than the run's names the dtypes", "[cli][messages][eval]") {
  // `eval --dtype f64` on an f32 run was refused as if the dims had changed
  // (issue 19, defect 11); without --dtype, eval takes the run's.
  fs::path dir = fresh_dir("dtype");
  const std::string flags =
      " --set N=8 --set H=8 --data synthetic:flipflop --batch 50 --threads 1 ";
  REQUIRE(
      run("train " + kFlipflop + flags + "--no-progress --epochs 1 --out " + (dir / "run").string())
          .exit_code == 0);
  const std::string eval = "eval " + kFlipflop + flags + "--split validation ";
  Run r = run(eval + "--dtype f64 --parameters " + (dir / "run").string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("F32"));
  CHECK_THAT(r.err, Catch::Contains("F64"));
  CHECK_THAT(r.err, Catch::Contains("--dtype f32"));
  CHECK_THAT(r.err, !Catch::Contains("dims"));
  CHECK(run(eval + "--parameters " + (dir / "run").string()).exit_code == 0);
}
