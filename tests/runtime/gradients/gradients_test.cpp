// The three gradient methods against each other and against central finite
// differences of the whole solve (f64), on the Delta-rule model with
// observation losses, a jump, an input path and (below) unequal series
// lengths, lane masks and input cotangents.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tests/runtime/solvers/gradient_case.h"

namespace {

using namespace plastic;
using namespace plastic::test;
using rt::GradientMethod;

rt::SolverOptions fixed(const char* name, double h) {
  rt::SolverOptions o;
  o.tableau = rt::find_tableau(name);
  o.step = h;
  o.fixed_step = true;
  return o;
}

rt::SolverOptions adaptive(const char* name, double tol) {
  rt::SolverOptions o;
  o.tableau = rt::find_tableau(name);
  o.rtol = tol;
  o.atol = tol;
  return o;
}

} // namespace

TEST_CASE("direct and checkpoint gradients are exact for the discretisation (fixed step)",
          "[gradient]") {
  const GradientCase gc;
  for (const char* name : {"rk4", "midpoint", "dopri5"}) {
    INFO("method " << name);
    const rt::SolverOptions o = fixed(name, 0.05);
    const auto direct = gc.gradient(o, method(GradientMethod::Direct));
    REQUIRE(direct.result.ok());
    const std::vector<double> fd = gc.finite_differences(o, 1e-5);
    const double fd_error = relative_error(concat(direct), fd);
    INFO("direct vs FD " << fd_error);
    CHECK(fd_error < 1e-6);
    CHECK(std::abs(direct.total_loss() - gc.loss(o, gc.theta, gc.z0)) < 1e-12);
    for (int64_t every : {1, 3, 7, 0}) {
      const auto ck = gc.gradient(o, method(GradientMethod::Checkpoint, every));
      REQUIRE(ck.result.ok());
      const double rel = relative_error(concat(ck), concat(direct));
      INFO("checkpoint every " << every << ": vs direct " << rel);
      CHECK(rel < 1e-12);
      CHECK(ck.total_loss() == direct.total_loss());
    }
  }
}

TEST_CASE("fused step_vjp kernels give the same gradient as the generic engine", "[gradient]") {
  GradientCase generic;
  GradientCase fused;
  fused.model.with_fused(*rt::find_tableau("rk4"));
  const rt::SolverOptions o = fixed("rk4", 0.05);
  const auto g1 = generic.gradient(o, method(GradientMethod::Direct));
  const auto g2 = fused.gradient(o, method(GradientMethod::Direct));
  REQUIRE(g1.result.ok());
  REQUIRE(g2.result.ok());
  CHECK(relative_error(concat(g2), concat(g1)) < 1e-13);
}

TEST_CASE("direct and checkpoint gradients with adaptive steps", "[gradient][adaptive]") {
  const GradientCase gc;
  const rt::SolverOptions o = adaptive("tsit5", 1e-9);
  const auto direct = gc.gradient(o, method(GradientMethod::Direct));
  REQUIRE(direct.result.ok());
  CHECK(direct.result.forward.rejected_steps >= 0);
  for (int64_t every : {4, 0}) {
    const auto ck = gc.gradient(o, method(GradientMethod::Checkpoint, every));
    REQUIRE(ck.result.ok());
    CHECK(relative_error(concat(ck), concat(direct)) < 1e-12);
  }
  // Finite differences of the adaptive solve include the controller's response to theta, which
  // the direct gradient holds fixed: they agree to the tolerance, not to round-off.
  const double fd_error = relative_error(concat(direct), gc.finite_differences(o, 1e-5));
  INFO("adaptive direct vs FD " << fd_error);
  CHECK(fd_error < 1e-6);
}

TEST_CASE("the adjoint gradient converges to the true gradient as its tolerance shrinks",
          "[gradient][adjoint]") {
  const GradientCase gc;
  // Reference: finite differences of a solve far more accurate than any adjoint below.
  const std::vector<double> reference = gc.finite_differences(adaptive("dopri5", 1e-12), 1e-5);
  double previous = INFINITY;
  for (double tol : {1e-4, 1e-6, 1e-8}) {
    rt::GradientOptions g = method(GradientMethod::Adjoint);
    g.adjoint_rtol = tol;
    g.adjoint_atol = tol;
    const auto adj = gc.gradient(adaptive("dopri5", tol), g);
    REQUIRE(adj.result.ok());
    const double err = relative_error(concat(adj), reference);
    INFO("tol " << tol << " adjoint error " << err << " backward steps "
                << adj.result.backward.accepted_steps);
    CHECK(err < previous);
    CHECK(err < 100 * tol);
    previous = err;
  }
  CHECK(previous < 1e-6);
}

TEST_CASE("the fixed-step adjoint converges with the method's order", "[gradient][adjoint]") {
  const GradientCase gc;
  const std::vector<double> reference = gc.finite_differences(adaptive("dopri5", 1e-12), 1e-5);
  std::vector<double> hs, errs;
  for (double h : {0.1, 0.05, 0.025}) {
    const auto adj = gc.gradient(fixed("rk4", h), method(GradientMethod::Adjoint));
    REQUIRE(adj.result.ok());
    hs.push_back(h);
    errs.push_back(relative_error(concat(adj), reference));
  }
  const double slope = loglog_slope(hs, errs);
  INFO("errors " << errs[0] << " " << errs[1] << " " << errs[2] << " slope " << slope);
  CHECK(std::abs(slope - 4) < 0.5);
}

TEST_CASE("adjoint seminorm and adjoint_field options", "[gradient][adjoint]") {
  GradientCase gc;
  const std::vector<double> reference = gc.finite_differences(adaptive("dopri5", 1e-12), 1e-5);
  rt::GradientOptions g = method(GradientMethod::Adjoint);
  g.adjoint_rtol = g.adjoint_atol = 1e-7;
  const auto full = gc.gradient(adaptive("dopri5", 1e-7), g);
  g.adjoint_seminorm = true;
  const auto semi = gc.gradient(adaptive("dopri5", 1e-7), g);
  REQUIRE(full.result.ok());
  REQUIRE(semi.result.ok());
  INFO("full norm: " << relative_error(concat(full), reference) << " in "
                     << full.result.backward.accepted_steps
                     << " steps; seminorm: " << relative_error(concat(semi), reference) << " in "
                     << semi.result.backward.accepted_steps << " steps");
  CHECK(relative_error(concat(full), reference) < 1e-5);
  CHECK(relative_error(concat(semi), reference) < 1e-5);
  CHECK(semi.result.backward.accepted_steps <= full.result.backward.accepted_steps);
}

TEST_CASE("output read after the jump", "[gradient]") {
  GradientCase gc;
  gc.model.table.observe_after_jump = 1;
  const rt::SolverOptions o = fixed("rk4", 0.05);
  const auto direct = gc.gradient(o, method(GradientMethod::Direct));
  REQUIRE(direct.result.ok());
  CHECK(relative_error(concat(direct), gc.finite_differences(o, 1e-5)) < 1e-6);
  // The flag changes the loss: the output at the jump reads another state.
  GradientCase before;
  CHECK(std::abs(before.loss(o, before.theta, before.z0) - gc.loss(o, gc.theta, gc.z0)) > 1e-6);
}

TEST_CASE("unequal series lengths and observation lane masks", "[gradient][lanes]") {
  GradientCase gc(3);
  gc.t_end = {2.0, 1.1, 1.6}; // lane 1 ends before the second observation
  gc.obs_times = {0.7, 1.1, 1.3, 1.6, 2.0};
  gc.obs_jump = {true, false, false, false, false};
  gc.obs_lanes = {0b101, 0b010, 0b101, 0b100, 0b001}; // each lane's loss at its own end
  gc.targets.clear();
  for (size_t k = 0; k < gc.obs_times.size(); ++k)
    gc.targets.push_back(random_values(static_cast<size_t>(gc.model.ctx->o * 3),
                                       300 + static_cast<unsigned>(k), -0.5, 0.5));
  for (const rt::SolverOptions& o : {fixed("rk4", 0.05), adaptive("dopri5", 1e-10)}) {
    INFO("method " << o.tableau->name);
    const auto direct = gc.gradient(o, method(GradientMethod::Direct));
    REQUIRE(direct.result.ok());
    CHECK(relative_error(concat(direct), gc.finite_differences(o, 1e-5)) < 1e-6);
    const auto ck = gc.gradient(o, method(GradientMethod::Checkpoint, 5));
    CHECK(relative_error(concat(ck), concat(direct)) < 1e-12);
    rt::GradientOptions g = method(GradientMethod::Adjoint);
    g.adjoint_rtol = g.adjoint_atol = 1e-10;
    const auto adj = gc.gradient(o, g);
    REQUIRE(adj.result.ok());
    // Fixed-step adjoint: O(h^4) from the exact discrete gradient; adaptive: O(tol).
    CHECK(relative_error(concat(adj), concat(direct)) < (o.adaptive() ? 1e-7 : 1e-4));
  }
}

TEST_CASE("input cotangents give the gradient with respect to the input path",
          "[gradient][inputs]") {
  // u(t) = p * wave(t): dL/dp = sum over the sink's calls of u_bar . wave(t).
  GradientCase gc;
  gc.input_scale = 1.3;
  const int m = gc.model.ctx->d_in * gc.L;
  const rt::InputFn<double> wave = wave_input<double>(gc.L, gc.model.ctx->d_in);
  for (GradientMethod gm :
       {GradientMethod::Direct, GradientMethod::Checkpoint, GradientMethod::Adjoint}) {
    INFO("gradient method " << static_cast<int>(gm));
    const rt::SolverOptions o =
        gm == GradientMethod::Adjoint ? adaptive("dopri5", 1e-10) : fixed("rk4", 0.05);
    const auto obs = gc.observations();
    const rt::TileProblem<double> p = gc.problem(gc.theta, obs);
    std::vector<double> theta_bar(gc.theta.size(), 0.0), w(static_cast<size_t>(m));
    double dp = 0;
    rt::GradientOutputs<double> out;
    out.theta_bar = theta_bar.data();
    out.input_bar = [&](const rt::InputRequest& r, const double* ubar) {
      wave(r, w.data());
      for (int i = 0; i < m; ++i)
        dp += ubar[i] * w[static_cast<size_t>(i)];
    };
    rt::GradientOptions g = method(gm, 4);
    g.adjoint_rtol = g.adjoint_atol = 1e-10;
    const rt::GradientResult r = rt::loss_and_gradient(p, o, g, gc.z0.data(), out);
    REQUIRE(r.ok());
    auto loss_of_p = [&](const std::vector<double>& pv) {
      GradientCase c2;
      c2.input_scale = pv[0];
      return c2.loss(o, c2.theta, c2.z0);
    };
    const double fd = central_difference(loss_of_p, {gc.input_scale}, 0, 1e-5);
    INFO("dL/dp " << dp << " FD " << fd);
    CHECK(std::abs(dp - fd) < 1e-6 * std::abs(fd));
  }
}

TEST_CASE("gradients in f32 agree with f64", "[gradient][f32]") {
  const GradientCase gc;
  auto model32 = delta_model<float>(2);
  const rt::SolverOptions o = fixed("rk4", 0.05);
  const auto ref = gc.gradient(o, method(GradientMethod::Direct));
  std::vector<float> theta = cast_values<float>(gc.theta), z0 = cast_values<float>(gc.z0);
  std::vector<std::vector<float>> targets;
  for (const auto& t : gc.targets)
    targets.push_back(cast_values<float>(t));
  std::vector<rt::Observation<float>> obs;
  for (size_t k = 0; k < gc.obs_times.size(); ++k)
    obs.push_back(
        {gc.obs_times[k], ~rt::LaneMask{0}, targets[k].data(), static_cast<bool>(gc.obs_jump[k])});
  rt::TileProblem<float> p;
  p.model = model32.get();
  p.theta = theta.data();
  p.t_end = gc.t_end;
  p.observations = obs;
  p.input = wave_input<float>(2, 2);
  for (GradientMethod gm :
       {GradientMethod::Direct, GradientMethod::Checkpoint, GradientMethod::Adjoint}) {
    std::vector<float> theta_bar(theta.size(), 0.0f), z0_bar(z0.size());
    rt::GradientOutputs<float> out;
    out.theta_bar = theta_bar.data();
    out.z0_bar = z0_bar.data();
    const rt::GradientResult r = rt::loss_and_gradient(p, o, method(gm), z0.data(), out);
    REQUIRE(r.ok());
    std::vector<double> got(theta_bar.begin(), theta_bar.end());
    got.insert(got.end(), z0_bar.begin(), z0_bar.end());
    // f32 round-off over 40 steps; the fixed-step adjoint adds its O(h^4) discretisation error.
    CHECK(relative_error(got, concat(ref)) < 1e-4);
  }
}
