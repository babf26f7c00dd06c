// Failures come back as values with the sample, the time and advice — never
// a crash or an escaping exception: blow-up (z' = z^2 is infinite at
// t = 1/z0), max_steps, malformed tables and arguments, throwing callbacks.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/runtime/solvers/gradient_case.h"

namespace {

using namespace plastic;
using namespace plastic::test;

/// z' = z^2 on a tile of two lanes: lane 0 from 0.5 (blows up at t = 2), lane 1 from 1 (at t = 1).
struct BlowUp {
  TestModel<double> model = quadratic_model<double>(2);
  std::vector<double> theta{1.0};
  std::vector<double> z{0.5, 1.0};
  double end[1] = {1.5};
  rt::TileProblem<double> problem() {
    rt::TileProblem<double> p;
    p.model = model.get();
    p.theta = theta.data();
    p.t_end = end;
    p.first_sample = 40;
    return p;
  }
};

} // namespace

TEST_CASE("a blow-up with an adaptive method is a step-size underflow near the singularity",
          "[failures]") {
  for (const char* name : {"dopri5", "tsit5", "bosh3"}) {
    INFO("method " << name);
    BlowUp b;
    rt::SolverOptions o;
    o.tableau = rt::find_tableau(name);
    o.rtol = 1e-6;
    o.atol = 1e-8;
    const rt::SolveResult r = rt::solve(b.problem(), o, b.z.data());
    REQUIRE(!r.ok());
    const rt::SolveFailure& f = r.status.error();
    INFO(f.describe());
    CHECK(f.kind == rt::FailureKind::StepSizeUnderflow);
    CHECK(std::abs(f.t - 1.0) < 1e-3);
    CHECK(f.lane == 1);
    CHECK(f.sample == 41);
    CHECK(!f.advice.empty());
    CHECK(f.describe().find("sample 41") != std::string::npos);
    CHECK(f.describe().find("step size underflow at t=") != std::string::npos);
    // The state is the last accepted one: finite, and large for the failing lane. (The numerical
    // solution's singularity sits at 1 + O(tol), so t may pass 1 by a hair.)
    CHECK(std::isfinite(b.z[1]));
    CHECK(b.z[1] > 1e3);
    CHECK(std::abs(r.stats.t_reached - 1.0) < 1e-3);
  }
}

TEST_CASE("dt_min turns the same blow-up into an earlier underflow", "[failures]") {
  BlowUp b;
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("dopri5");
  o.dt_min = 1e-4;
  const rt::SolveResult r = rt::solve(b.problem(), o, b.z.data());
  REQUIRE(!r.ok());
  CHECK(r.status.error().kind == rt::FailureKind::StepSizeUnderflow);
  CHECK(r.status.error().h < 1e-4);
  CHECK(r.status.error().t < 1.0);
  CHECK(r.status.error().t > 0.9);
}

TEST_CASE("a blow-up with a fixed step is a non-finite state just after the singularity",
          "[failures]") {
  BlowUp b;
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.01;
  const rt::SolveResult r = rt::solve(b.problem(), o, b.z.data());
  REQUIRE(!r.ok());
  const rt::SolveFailure& f = r.status.error();
  INFO(f.describe());
  CHECK(f.kind == rt::FailureKind::NonFiniteState);
  CHECK(f.t > 0.95);
  CHECK(f.t < 1.1);
  CHECK(f.sample == 41);
  CHECK(f.h == Approx(0.01));
  CHECK(f.advice.find("smaller step") != std::string::npos);
}

TEST_CASE("gradient methods report the forward failure", "[failures]") {
  for (rt::GradientMethod m :
       {rt::GradientMethod::Direct, rt::GradientMethod::Checkpoint, rt::GradientMethod::Adjoint}) {
    BlowUp b;
    rt::SolverOptions o;
    o.tableau = rt::find_tableau("dopri5");
    std::vector<double> theta_bar(1, 0.0);
    rt::GradientOutputs<double> out;
    out.theta_bar = theta_bar.data();
    const rt::GradientResult r = rt::loss_and_gradient(b.problem(), o, method(m), b.z.data(), out);
    REQUIRE(!r.ok());
    CHECK(r.status.error().kind == rt::FailureKind::StepSizeUnderflow);
    CHECK(theta_bar[0] == 0.0); // nothing half-accumulated
  }
}

TEST_CASE("every gradient method names the fixed step where the state became non-finite",
          "[failures]") {
  // The blow-up lies mid-way through the one interval (no observations before
  // t = 1.5), so a method that checks once per interval must still find the
  // step; the direct method searches its tape, the others check every step.
  BlowUp solved;
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.01;
  const rt::SolveResult expected = rt::solve(solved.problem(), o, solved.z.data());
  REQUIRE(!expected.ok());
  const rt::SolveFailure& want = expected.status.error();
  REQUIRE(want.t < 1.1);
  for (rt::GradientMethod m :
       {rt::GradientMethod::Direct, rt::GradientMethod::Checkpoint, rt::GradientMethod::Adjoint}) {
    BlowUp b;
    std::vector<double> theta_bar(1, 0.0);
    rt::GradientOutputs<double> out;
    out.theta_bar = theta_bar.data();
    const rt::GradientResult r = rt::loss_and_gradient(b.problem(), o, method(m), b.z.data(), out);
    REQUIRE(!r.ok());
    const rt::SolveFailure& f = r.status.error();
    INFO(f.describe());
    CHECK(f.kind == rt::FailureKind::NonFiniteState);
    CHECK(f.t == want.t);
    CHECK(f.h == want.h);
    CHECK(f.sample == want.sample);
    CHECK(f.message == want.message);
    CHECK(theta_bar[0] == 0.0);
  }
}

TEST_CASE("max_steps exceeded is reported with the time reached", "[failures]") {
  auto tm = linear_model<double>(1, 3);
  const std::vector<double> theta = linear_theta(3, 2);
  std::vector<double> z{1, 0, 0};
  const double end[1] = {50.0};
  rt::TileProblem<double> p;
  p.model = tm.get();
  p.theta = theta.data();
  p.t_end = end;
  p.input = cos_sin_input<double>(1);
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("dopri5");
  o.rtol = o.atol = 1e-10;
  o.max_steps = 20;
  const rt::SolveResult r = rt::solve(p, o, z.data());
  REQUIRE(!r.ok());
  CHECK(r.status.error().kind == rt::FailureKind::MaxStepsExceeded);
  CHECK(r.status.error().t < 50.0);
  CHECK(r.status.error().t > 0.0);
  CHECK(r.stats.accepted_steps + r.stats.rejected_steps == 20);
  CHECK(r.status.error().advice.find("max_steps") != std::string::npos);
  // Fixed-step methods honour an explicit max_steps too.
  o.tableau = rt::find_tableau("euler");
  o.step = 0.1;
  z = {1, 0, 0};
  CHECK(rt::solve(p, o, z.data()).status.error().kind == rt::FailureKind::MaxStepsExceeded);
}

TEST_CASE("malformed tables and arguments are rejected before any kernel runs", "[failures]") {
  GradientCase gc;
  const auto obs = gc.observations();
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.1;
  auto solve_status = [&](const rt::TileProblem<double>& p, const rt::SolverOptions& opts) {
    std::vector<double> z = gc.z0;
    return rt::solve(p, opts, z.data()).status;
  };
  CHECK(solve_status(gc.problem(gc.theta, obs), o).ok());

  rt::SolverOptions no_step = o;
  no_step.step = 0;
  CHECK(solve_status(gc.problem(gc.theta, obs), no_step).error().kind ==
        rt::FailureKind::InvalidArgument);

  GradientCase wrong_version;
  wrong_version.model.table.abi_version = 99;
  CHECK(solve_status(wrong_version.problem(gc.theta, obs), o).error().kind ==
        rt::FailureKind::InvalidModel);

  GradientCase no_field;
  no_field.model.table.kernels.field = nullptr;
  CHECK(solve_status(no_field.problem(gc.theta, obs), o).error().kind ==
        rt::FailureKind::InvalidModel);

  GradientCase no_jump;
  no_jump.model.table.kernels.jump = nullptr;
  CHECK(solve_status(no_jump.problem(gc.theta, obs), o).error().kind ==
        rt::FailureKind::InvalidModel);

  GradientCase overlapping;
  overlapping.model.params.push_back(overlapping.model.params[0]);
  overlapping.model.table.params = overlapping.model.params.data();
  overlapping.model.table.n_param_entries = 2;
  CHECK(solve_status(overlapping.problem(gc.theta, obs), o).error().kind ==
        rt::FailureKind::InvalidModel);

  auto unordered = obs;
  std::swap(unordered[0], unordered[1]);
  CHECK(solve_status(gc.problem(gc.theta, unordered), o).error().kind ==
        rt::FailureKind::InvalidArgument);

  rt::TileProblem<double> no_input = gc.problem(gc.theta, obs);
  no_input.input = nullptr;
  CHECK(solve_status(no_input, o).error().kind == rt::FailureKind::InvalidArgument);

  rt::TileProblem<double> backwards = gc.problem(gc.theta, {});
  const double before[1] = {-1.0};
  backwards.t_end = before;
  CHECK(solve_status(backwards, o).error().kind == rt::FailureKind::InvalidArgument);

  // A NaN in the initial state of lane 1.
  std::vector<double> z = gc.z0;
  z[1] = NAN;
  const rt::SolveResult r = rt::solve(gc.problem(gc.theta, obs), o, z.data());
  CHECK(r.status.error().kind == rt::FailureKind::NonFiniteState);
  CHECK(r.status.error().lane == 1);

  // Direct gradients without a field VJP (and no fused step_vjp).
  GradientCase no_vjp;
  no_vjp.model.table.kernels.field_vjp = nullptr;
  const auto g = no_vjp.gradient(o, method(rt::GradientMethod::Direct));
  CHECK(g.result.status.error().kind == rt::FailureKind::InvalidModel);

  // Solver and gradient descriptors from the model's spec.
  plastic_solver_desc sd{};
  sd.method = "dopri6";
  CHECK(!rt::SolverOptions::from_desc(sd).ok());
  sd.method = "tsit5";
  sd.rtol = 1e-5;
  const auto parsed = rt::SolverOptions::from_desc(sd);
  REQUIRE(parsed.ok());
  CHECK(parsed.value().adaptive());
  CHECK(parsed.value().rtol == 1e-5);
  plastic_gradient_desc gd{};
  gd.kind = PLASTIC_GRAD_CHECKPOINT;
  gd.checkpoint_every = 16;
  REQUIRE(rt::GradientOptions::from_desc(gd).ok());
  CHECK(rt::GradientOptions::from_desc(gd).value().checkpoint_every == 16);
  gd.kind = 7;
  CHECK(!rt::GradientOptions::from_desc(gd).ok());
}

TEST_CASE("exceptions from caller callbacks become failures", "[failures]") {
  GradientCase gc;
  const auto obs = gc.observations();
  rt::TileProblem<double> p = gc.problem(gc.theta, obs);
  p.input = [](const rt::InputRequest& r, double*) {
    if (r.t > 0.5) throw std::runtime_error("data file truncated");
  };
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.1;
  std::vector<double> z = gc.z0;
  const rt::SolveResult r = rt::solve(p, o, z.data());
  CHECK(r.status.error().kind == rt::FailureKind::Internal);
  CHECK(r.status.describe().find("data file truncated") != std::string::npos);
  std::vector<double> theta_bar(gc.theta.size());
  rt::GradientOutputs<double> out;
  out.theta_bar = theta_bar.data();
  CHECK(rt::gradient_adjoint(p, o, method(rt::GradientMethod::Adjoint), gc.z0.data(), out)
            .status.error()
            .kind == rt::FailureKind::Internal);
}

TEST_CASE("NaN inputs are reported as non-finite with the sample and time", "[failures]") {
  GradientCase gc(3);
  const auto obs = gc.observations();
  rt::TileProblem<double> p = gc.problem(gc.theta, obs);
  p.first_sample = 8;
  const rt::InputFn<double> clean = p.input;
  p.input = [clean](const rt::InputRequest& r, double* u) {
    clean(r, u);
    if (r.t > 0.5) u[2] = NAN; // channel 0 of lane 2
  };
  for (const char* name : {"dopri5", "rk4"}) {
    INFO("method " << name);
    rt::SolverOptions o;
    o.tableau = rt::find_tableau(name);
    o.step = 0.1;
    std::vector<double> z = gc.z0;
    const rt::SolveResult r = rt::solve(p, o, z.data());
    REQUIRE(!r.ok());
    INFO(r.status.describe());
    CHECK(r.status.error().kind == rt::FailureKind::NonFiniteState);
    CHECK(r.status.error().sample == 10);
    CHECK(std::abs(r.status.error().t - 0.5) < 0.11);
    CHECK(!r.status.error().advice.empty());
  }
}

TEST_CASE("a non-finite adjoint names the backward step where it became non-finite", "[failures]") {
  // The backward sweep checks its state once per interval between events and
  // replays a failed interval step by step: the failure must still name the
  // step, not the interval's end. The input turns NaN for lane 2 inside
  // (0.9, 1.0) on the way back only, so the forward solve succeeds and the
  // backward rk4 step from t = 1.0 to 0.9 (its middle node 0.95) fails, in
  // the middle of the interval [0.7, 1.3] between two observations.
  GradientCase gc(3);
  const auto obs = gc.observations();
  rt::TileProblem<double> p = gc.problem(gc.theta, obs);
  p.first_sample = 8;
  const rt::InputFn<double> clean = p.input;
  auto backwards = std::make_shared<bool>(false);
  p.input = [clean, backwards](const rt::InputRequest& r, double* u) {
    clean(r, u);
    if (r.t >= 2.0) *backwards = true;                    // the forward solve's last node
    if (*backwards && r.t > 0.9 && r.t < 1.0) u[2] = NAN; // channel 0 of lane 2
  };
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.1;
  std::vector<double> theta_bar(gc.theta.size());
  rt::GradientOutputs<double> out;
  out.theta_bar = theta_bar.data();
  const rt::GradientResult r =
      rt::gradient_adjoint(p, o, method(rt::GradientMethod::Adjoint), gc.z0.data(), out);
  REQUIRE(!r.status);
  const rt::SolveFailure& f = r.status.error();
  INFO(f.describe());
  CHECK(f.kind == rt::FailureKind::NonFiniteState);
  CHECK(f.sample == 10);
  CHECK(std::abs(f.t - 1.0) < 1e-9);
  CHECK(std::abs(f.h + 0.1) < 1e-9);
  CHECK(f.message.find("backward") != std::string::npos);
}

TEST_CASE("a non-finite step after a jump is named alike by solve and every gradient method",
          "[failures]") {
  // The NaN input lies inside (1.0, 1.1), in the interval that the jump at
  // the observation t = 0.7 opens: a method that checks once per interval
  // must replay that jump before it finds the step.
  GradientCase gc(3);
  const auto obs = gc.observations();
  rt::TileProblem<double> p = gc.problem(gc.theta, obs);
  p.first_sample = 8;
  const rt::InputFn<double> clean = p.input;
  p.input = [clean](const rt::InputRequest& r, double* u) {
    clean(r, u);
    if (r.t > 1.0 && r.t < 1.1) u[2] = NAN; // channel 0 of lane 2
  };
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.1;
  std::vector<double> z = gc.z0;
  const rt::SolveResult solved = rt::solve(p, o, z.data());
  REQUIRE(!solved.ok());
  const rt::SolveFailure& want = solved.status.error();
  CHECK(want.sample == 10);
  CHECK(std::abs(want.t - 1.0) < 1e-9);
  for (rt::GradientMethod m :
       {rt::GradientMethod::Direct, rt::GradientMethod::Checkpoint, rt::GradientMethod::Adjoint}) {
    std::vector<double> theta_bar(gc.theta.size(), 0.0);
    rt::GradientOutputs<double> out;
    out.theta_bar = theta_bar.data();
    const rt::GradientResult r = rt::loss_and_gradient(p, o, method(m, 4), gc.z0.data(), out);
    REQUIRE(!r.ok());
    const rt::SolveFailure& f = r.status.error();
    INFO(f.describe());
    CHECK(f.kind == rt::FailureKind::NonFiniteState);
    CHECK(f.t == want.t);
    CHECK(f.h == want.h);
    CHECK(f.sample == want.sample);
    CHECK(f.message == want.message);
  }
}
