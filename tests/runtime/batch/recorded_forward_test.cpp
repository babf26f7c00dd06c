// RecordedForward: its outputs are predict()'s and its VJP is output_vjp()'s,
// bitwise, while the direct method's tapes are kept from the forward pass
// (one forward solve), all, none or some of them under a memory limit; a
// second VJP solves again; checkpoint and adjoint keep nothing.
#include <catch2/catch.hpp>

#include <random>

#include "runtime/batch/output_vjp.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/recorded_forward.h"
#include "tests/runtime/batch/batch_models.h"

using namespace plastic;

namespace {

struct Case {
  std::unique_ptr<test::CdeModel<double>> model;
  rt::PreparedData prepared;
  std::vector<double> theta;
  std::vector<int64_t> samples;
};

Case make_case(const test::CdeSpec& spec, rt::TargetKind kind, int width) {
  Case c;
  c.model = test::make_cde<double>(spec);
  // Unequal lengths, a padded last tile, samples out of order and repeated.
  const rt::Dataset data =
      test::make_data({6, 4, 7, 5, 3, 8, 4, 6, 5}, spec.d, spec.S, kind, width, 17);
  auto p = rt::prepare(c.model->get(), data);
  REQUIRE(p);
  c.prepared = std::move(p.value());
  c.theta = test::random_theta(c.model->P(), 18);
  c.samples = {3, 0, 8, 5, 1, 1, 7, 2, 6, 4};
  return c;
}

std::vector<double> cotangents(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double& x : v)
    x = dist(gen);
  return v;
}

// run() + vjp() against predict() + output_vjp() for `options`; `kept`: the
// tiles expected to keep their tape (-1: some but not all), `limit` run()'s keep_limit.
void check_against_two_calls(const Case& c, const rt::BatchOptions& options, int kept,
                             double limit = -1) {
  const plastic_model& m = c.model->get();
  auto pred = rt::predict<double>(m, c.prepared, c.samples, c.theta, options);
  REQUIRE(pred);
  rt::RecordedForward<double> rec;
  rec.keep_limit(limit);
  const Status<rt::SolveFailure> ran = rec.run(m, c.prepared, c.samples, c.theta, options);
  INFO(ran.describe());
  REQUIRE(ran.ok());
  if (kept >= 0) {
    CHECK(rec.kept_tiles() == size_t(kept));
  } else {
    CHECK(rec.kept_tiles() > 0);
    CHECK(rec.kept_tiles() < 3);
  }
  CHECK((rec.kept_bytes() > 0) == (rec.kept_tiles() > 0));
  const rt::Predictions<double>& p = rec.predictions();
  CHECK(p.first_row == pred.value().first_row);
  CHECK(p.times == pred.value().times);
  CHECK(p.outputs == pred.value().outputs);
  CHECK(p.loss_sum == pred.value().loss_sum);

  const std::vector<double> y_bar = cotangents(p.outputs.size(), 19);
  std::vector<double> expected(c.theta.size(), 0.0);
  const rt::BatchLoss want =
      rt::output_vjp<double>(m, c.prepared, c.samples, c.theta, y_bar, expected, options);
  REQUIRE(want.ok());
  std::vector<double> got(c.theta.size(), 0.0);
  const rt::BatchLoss r = rec.vjp(y_bar, got);
  INFO(r.status.describe());
  REQUIRE(r.ok());
  CHECK(got == expected);
  CHECK(r.terms == want.terms);
  CHECK(rec.kept_tiles() == 0); // the tapes are spent
  // A second backward (torch's retain_graph) solves again: the same numbers.
  std::vector<double> again(c.theta.size(), 0.0);
  REQUIRE(rec.vjp(y_bar, again).ok());
  CHECK(again == expected);
}

} // namespace

TEST_CASE("a recorded forward pass predicts and differentiates as predict and output_vjp",
          "[batch][recorded]") {
  test::CdeSpec spec;
  spec.S = 2;
  const Case c = make_case(spec, rt::TargetKind::Class, spec.o);
  rt::BatchOptions o;
  for (int threads : {1, 3}) {
    o.threads = threads;
    check_against_two_calls(c, o, 3); // 10 samples in tiles of 4
  }
}

TEST_CASE("tapes past the memory limit are dropped and those tiles solved again",
          "[batch][recorded]") {
  test::CdeSpec spec;
  spec.S = 1;
  const Case c = make_case(spec, rt::TargetKind::Class, spec.o);
  rt::BatchOptions o;
  o.threads = 1; // tiles in order: the first ones fit
  check_against_two_calls(c, o, 0, 0.0);
  rt::RecordedForward<double> all;
  REQUIRE(all.run(c.model->get(), c.prepared, c.samples, c.theta, o).ok());
  REQUIRE(all.kept_tiles() == 3);
  check_against_two_calls(c, o, -1, all.kept_bytes() / 2);
}

TEST_CASE("a recorded forward pass with per-observation readouts and jumps", "[batch][recorded]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_REGRESSION;
  spec.readout = PLASTIC_READOUT_EACH_OBSERVATION;
  spec.jump = true;
  spec.method = "dopri5";
  spec.step_size = 0;
  const Case c = make_case(spec, rt::TargetKind::RegressionPerStep, spec.o);
  rt::BatchOptions o;
  o.threads = 2;
  check_against_two_calls(c, o, 3);
}

TEST_CASE("checkpoint and adjoint keep no tape and solve again in vjp", "[batch][recorded]") {
  test::CdeSpec spec;
  const Case c = make_case(spec, rt::TargetKind::Class, spec.o);
  rt::BatchOptions o;
  o.gradient = rt::GradientOptions{};
  o.gradient->method = rt::GradientMethod::Checkpoint;
  check_against_two_calls(c, o, 0);
  o.gradient->method = rt::GradientMethod::Adjoint;
  check_against_two_calls(c, o, 0);
}
