// NaN and inf traced to the model's source (compiler/analysis/
// nonfinite_locator.h), end to end: models crafted to fail at a known line
// of tests/driver/nonfinite/ — a log of a negative value, a division by
// zero, an exp that overflows, a step far too large for a stiff field, and
// a sqrt whose derivative is infinite — are trained on the generated
// flip-flop task, and `plastic train` must name that line and column with a
// caret, say forward or backward, and still skip the batches and save no
// non-finite parameters.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/driver/cli_support.h"

using namespace plastic::test;
namespace fs = std::filesystem;

namespace {

// A new, empty run folder for one test case.
fs::path run_dir(const std::string& name) {
  return fresh_test_dir("nonfinite_test", name) / "run";
}

Run train(const std::string& model, const fs::path& out) {
  return run("train " + src("tests/driver/nonfinite/" + model) +
             " --data synthetic:flipflop --dtype f64 --batch 100 --threads 2 --epochs 1"
             " --no-progress --out " +
             out.string());
}

Run train_fresh(const std::string& model, const std::string& name) {
  return train(model, run_dir(name));
}

} // namespace

TEST_CASE("a log of a negative value is traced to its line", "[nonfinite]") {
  const fs::path out = run_dir("log");
  Run r = train("log_negative.ode", out);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1); // every batch skipped: training diverged, as before
  CHECK_THAT(r.err, Catch::Contains("log_negative.ode:7:19: error: log of a negative value ("));
  CHECK_THAT(r.err, Catch::Contains("in the forward pass (data sample"));
  CHECK_THAT(r.err, Catch::Contains("flow z' = W @ z + log(0.3 - t)"));
  CHECK_THAT(r.err, Catch::Contains("every step of epoch 1 failed in the solver"));
  CHECK_FALSE(fs::exists(out / "model.safetensors")); // nothing non-finite saved
}

TEST_CASE("a square root of a negative value is traced to its line", "[nonfinite]") {
  Run r = train_fresh("sqrt_negative.ode", "sqrt_negative");
  INFO(r.out << r.err);
  CHECK_THAT(r.err, Catch::Contains("sqrt_negative.ode:7:19: error: square root of a negative "
                                    "value ("));
  CHECK_THAT(r.err, Catch::Contains("in the forward pass (data sample"));
}

TEST_CASE("a value only f32 meets is not traced, and the note says why", "[nonfinite]") {
  const fs::path out = run_dir("f32_only");
  Run r = run("train " + src("tests/driver/nonfinite/f32_overflow.ode") +
              " --data synthetic:flipflop --dtype f32 --batch 100 --threads 2 --epochs 1"
              " --no-progress --out " +
              out.string());
  INFO(r.out << r.err);
  CHECK_THAT(r.err, Catch::Contains("note: the reference interpreter re-ran data sample"));
  CHECK_THAT(r.err, Catch::Contains("met no non-finite value"));
  CHECK_THAT(r.err, Catch::Contains("--dtype f64 checks it"));
  // In f64 the same model trains: the note's check holds.
  Run f64 = train_fresh("f32_overflow.ode", "f32_only_in_f64");
  INFO(f64.out << f64.err);
  CHECK(f64.exit_code == 0);
}

TEST_CASE("a division by zero is traced to its line", "[nonfinite]") {
  Run r = train_fresh("divide_by_zero.ode", "div");
  INFO(r.out << r.err);
  CHECK_THAT(r.err, Catch::Contains("divide_by_zero.ode:7:22: error: division by zero (1 / 0) at "
                                    "t = 0 in the forward pass"));
}

TEST_CASE("an exp that overflows is traced to its line", "[nonfinite]") {
  Run r = train_fresh("exp_overflow.ode", "exp");
  INFO(r.out << r.err);
  CHECK_THAT(r.err, Catch::Contains("exp_overflow.ode:7:19: error: overflow in exp (exp(7"));
}

TEST_CASE("a blow-up from too large a step is traced to the growing term", "[nonfinite]") {
  Run r = train_fresh("step_too_large.ode", "step");
  INFO(r.out << r.err);
  CHECK_THAT(r.err, Catch::Contains("step_too_large.ode:9:11: error: overflow in a product ("));
  CHECK_THAT(r.err, Catch::Contains("in the forward pass"));
}

TEST_CASE("an infinite derivative is traced to its primal in the backward pass", "[nonfinite]") {
  Run r = train_fresh("sqrt_backward.ode", "sqrt");
  INFO(r.out << r.err);
  CHECK_THAT(r.err, Catch::Contains("sqrt_backward.ode:7:11: error: division by zero (1 / 0)"));
  CHECK_THAT(r.err, Catch::Contains("in the backward pass (data sample"));
  // No non-finite step was taken: the parameters saved are the initial ones.
  CHECK_THAT(r.err, Catch::Contains("non-finite gradient"));
}

TEST_CASE("eval traces a non-finite value to its line too", "[nonfinite]") {
  // Trained with k = 1 (finite), evaluated with k = 1000: exp(k t) overflows.
  const std::string model = src("tests/driver/nonfinite/exp_scaled.ode");
  const fs::path out = run_dir("eval");
  Run t = train("exp_scaled.ode", out);
  INFO(t.out << t.err);
  REQUIRE(t.exit_code == 0);
  // The run folder records k = 1 and would refuse another --set: the
  // parameters alone, copied out of it, are evaluated at k = 1000.
  const fs::path loose = run_dir("eval_loose");
  fs::create_directories(loose);
  fs::copy_file(out / "model.safetensors", loose / "params.safetensors");
  Run e = run("eval " + model +
              " --set k=1000 --data synthetic:flipflop --dtype f64 --split validation "
              "--parameters " +
              (loose / "params.safetensors").string());
  INFO(e.out << e.err);
  CHECK(e.exit_code == 1);
  CHECK_THAT(e.err, Catch::Contains("exp_scaled.ode:9:19: error: overflow in exp (exp(710)) at "
                                    "t = 0.71 in the forward pass (data sample"));
}
