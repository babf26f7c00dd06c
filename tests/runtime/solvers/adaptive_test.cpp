// The driver's contract on times and work: steps land exactly on knots and
// observations and never cross them, the fixed grid is not shifted by
// events, dt_max is honoured, FSAL saves one evaluation per step, outputs
// are read at the observation times, and lanes with shorter series are
// frozen at their own end.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/runtime/solvers/test_support.h"

namespace {

using namespace plastic;
using namespace plastic::test;

constexpr int kN = 3, kL = 2;

/// The linear model's problem with an input path that records every request.
struct Recorded {
  TestModel<double> model = linear_model<double>(kL, kN);
  std::vector<double> theta = linear_theta(kN, 2);
  std::vector<double> z0 = random_values(kN * kL, 21);
  std::vector<double> end{2.0};
  std::vector<double> knots;
  std::vector<rt::Observation<double>> obs;
  std::vector<rt::InputRequest> requests;

  rt::TileProblem<double> problem() {
    rt::TileProblem<double> p;
    p.model = model.get();
    p.theta = theta.data();
    p.t_end = end;
    p.knots = knots;
    p.observations = obs;
    const rt::InputFn<double> inner = cos_sin_input<double>(kL);
    p.input = [this, inner](const rt::InputRequest& r, double* u) {
      requests.push_back(r);
      inner(r, u);
    };
    return p;
  }
};

bool visited(const std::vector<rt::InputRequest>& reqs, double t) {
  return std::any_of(reqs.begin(), reqs.end(),
                     [t](const rt::InputRequest& r) { return r.hi == t; });
}

} // namespace

TEST_CASE("adaptive steps land on knots and never cross them / FSAL saves evaluations",
          "[adaptive]") {
  for (const char* name : {"dopri5", "tsit5", "bosh3"}) {
    INFO("method " << name);
    Recorded rec;
    rec.knots = {0.3, 0.77, 1.234};
    std::vector<double> z = rec.z0;
    rt::SolverOptions o;
    o.tableau = rt::find_tableau(name);
    o.rtol = o.atol = 1e-6;
    const rt::SolveResult r = rt::solve(rec.problem(), o, z.data());
    REQUIRE(r.ok());
    for (const rt::InputRequest& q : rec.requests) {
      CHECK(q.lo <= q.t);
      CHECK(q.t <= q.hi);
      for (double k : rec.knots)
        CHECK(!(q.lo < k && k < q.hi));
    }
    for (double k : rec.knots)
      CHECK(visited(rec.requests, k));
    // f(t0) and Hairer's second evaluation, s-1 stages per attempt (FSAL), and one fresh first
    // stage after each knot (the input may jump there, so the FSAL value is not reused).
    const int s = o.tableau->stages;
    CHECK(r.stats.field_evals ==
          2 + (s - 1) * (r.stats.accepted_steps + r.stats.rejected_steps) + 3);
    // The knots cost steps but not accuracy.
    for (int l = 0; l < kL; ++l) {
      const Eigen::VectorXd exact = linear_exact(rec.theta, kN, lane_of(rec.z0, kN, kL, l), 0, 2.0);
      CHECK((lane_of(z, kN, kL, l) - exact).cwiseAbs().maxCoeff() < 1e-5);
    }
  }
}

TEST_CASE("dt_max bounds every adaptive step", "[adaptive]") {
  Recorded rec;
  std::vector<double> z = rec.z0;
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("dopri5");
  o.rtol = o.atol = 1e-3;
  o.dt_max = 0.07;
  const rt::SolveResult r = rt::solve(rec.problem(), o, z.data());
  REQUIRE(r.ok());
  CHECK(r.stats.accepted_steps >= static_cast<int64_t>(std::ceil(2.0 / 0.07)));
  // Stages after the first belong to one step ([lo, hi] is the step); first-stage evaluations
  // before a step is chosen cover the interval up to the next event instead.
  int steps_seen = 0;
  for (const rt::InputRequest& q : rec.requests)
    if (q.t > q.lo) {
      CHECK(q.hi - q.lo <= 0.07 + 1e-12);
      ++steps_seen;
    }
  CHECK(steps_seen > 0);
}

TEST_CASE("fixed steps keep their grid when events cut a cell", "[adaptive]") {
  Recorded rec;
  rec.knots = {0.6};
  std::vector<double> z = rec.z0;
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.25;
  const rt::SolveResult r = rt::solve(rec.problem(), o, z.data());
  REQUIRE(r.ok());
  CHECK(r.stats.accepted_steps == 9); // 8 grid cells, one of them split at 0.6
  for (double t : {0.25, 0.5, 0.6, 0.75, 1.0, 1.75, 2.0})
    CHECK(visited(rec.requests, t));
  CHECK(r.stats.field_evals == 9 * 4);
}

TEST_CASE("outputs are read at the observation times", "[adaptive]") {
  Recorded rec;
  rec.obs = {{0.5}, {1.0}, {1.5}, {2.0}};
  std::vector<double> z = rec.z0, outputs(4 * kN * kL);
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("tsit5");
  o.rtol = o.atol = 1e-9;
  REQUIRE(rt::solve(rec.problem(), o, z.data(), outputs.data()).ok());
  for (int k = 0; k < 4; ++k)
    for (int l = 0; l < kL; ++l) {
      const Eigen::VectorXd exact =
          linear_exact(rec.theta, kN, lane_of(rec.z0, kN, kL, l), 0, 0.5 * (k + 1));
      for (int i = 0; i < kN; ++i)
        CHECK(std::abs(outputs[static_cast<size_t>((k * kN + i) * kL + l)] - exact(i)) < 1e-8);
    }
}

TEST_CASE("a lane with a shorter series is frozen at its own end", "[adaptive][lanes]") {
  for (const char* name : {"rk4", "dopri5"}) {
    INFO("method " << name);
    rt::SolverOptions o;
    o.tableau = rt::find_tableau(name);
    o.step = 0.1;
    o.rtol = o.atol = 1e-9;
    Recorded tile;
    tile.end = {2.0, 0.75};
    std::vector<double> z = tile.z0;
    REQUIRE(rt::solve(tile.problem(), o, z.data()).ok());
    for (int l = 0; l < kL; ++l) {
      const double t1 = tile.end[static_cast<size_t>(l)];
      const Eigen::VectorXd exact =
          linear_exact(tile.theta, kN, lane_of(tile.z0, kN, kL, l), 0, t1);
      CHECK((lane_of(z, kN, kL, l) - exact).cwiseAbs().maxCoeff() < (o.adaptive() ? 1e-7 : 1e-5));
    }
    // At fixed step, lane 1 took exactly the steps of a solve that stops at 0.75.
    if (!o.adaptive()) {
      Recorded alone;
      alone.end = {0.75};
      std::vector<double> z1 = alone.z0;
      REQUIRE(rt::solve(alone.problem(), o, z1.data()).ok());
      for (int i = 0; i < kN; ++i)
        CHECK(z1[static_cast<size_t>(i * kL + 1)] == z[static_cast<size_t>(i * kL + 1)]);
    }
  }
}
