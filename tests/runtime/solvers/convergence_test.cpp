// Empirical convergence orders (diffrax's test_ode_order): every method on a
// forced linear ODE whose exact solution is a matrix exponential. The
// forcing u(t) = (cos t, sin t) reaches the field only through the input
// samples the runtime evaluates at the stage times, so wrong stage times
// would show as a lost order. Embedded pairs are run at fixed step here;
// their adaptive behaviour is tested against tolerances below.
//
// The order test uses an oscillator (skew-symmetric A, no decay) so that
// errors do not decay away on long spans: the fifth-order pairs have small
// principal error constants (Tsit5 by design) and reach their asymptotic
// slope only at |h lambda| < 0.1, where a span of 40 keeps the errors far
// above round-off.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/solvers/solve.h"
#include "tests/runtime/solvers/test_support.h"

namespace {

using namespace plastic;
using namespace plastic::test;

constexpr int kN = 3, kL = 2, kM = 2;
constexpr double kT0 = 0.25;

struct Setup {
  std::vector<double> theta = linear_theta(kN, kM);
  std::vector<double> z0 = random_values(kN * kL, 5);
  double t1 = 2.25;
  double end[1] = {2.25};
  void set_end(double t) { t1 = end[0] = t; }
};

/// z' = A z + B u with skew-symmetric A (eigenvalues 0, +-1.58i).
Setup oscillator(double t1) {
  Setup s;
  s.theta = {0, 1.5, 0, -1.5, 0, 0.5, 0, -0.5, 0, 0.3, 0.1, -0.2, 0.4, 0.1, 0.2};
  s.set_end(t1);
  return s;
}

/// Max over lanes of the inf-norm error at s.t1.
template <class T>
double solve_error(const rt::SolverOptions& options, TestModel<T>& tm, const Setup& s,
                   rt::SolveStats* stats = nullptr) {
  const std::vector<T> theta = cast_values<T>(s.theta);
  std::vector<T> z = cast_values<T>(s.z0);
  rt::TileProblem<T> p;
  p.model = tm.get();
  p.theta = theta.data();
  p.t0 = kT0;
  p.t_end = s.end;
  p.input = cos_sin_input<T>(kL);
  const rt::SolveResult r = rt::solve(p, options, z.data());
  INFO(r.status.describe());
  REQUIRE(r.ok());
  if (stats) *stats = r.stats;
  double err = 0;
  for (int l = 0; l < kL; ++l) {
    const Eigen::VectorXd z0 = lane_of(s.z0, kN, kL, l);
    const Eigen::VectorXd exact = linear_exact(s.theta, kN, z0, kT0, s.t1);
    err = std::max(err, (lane_of(z, kN, kL, l) - exact).cwiseAbs().maxCoeff());
  }
  return err;
}

} // namespace

TEST_CASE("every method converges with its declared order", "[convergence]") {
  auto tm = linear_model<double>(kL, kN, kM);
  for (const rt::ButcherTableau& tab : rt::all_tableaus()) {
    INFO("method " << tab.name);
    // Spans and step counts chosen so errors stay well above round-off and inside the asymptotic
    // regime.
    const Setup s = oscillator(tab.order <= 4 ? kT0 + 2.0 : kT0 + 40.0);
    const double span = s.t1 - kT0;
    const std::vector<int> counts = tab.order <= 2   ? std::vector<int>{16, 32, 64, 128}
                                    : tab.order <= 4 ? std::vector<int>{8, 16, 32, 64}
                                                     : std::vector<int>{640, 1280, 2560, 5120};
    std::vector<double> hs, errs;
    for (int count : counts) {
      rt::SolverOptions o;
      o.tableau = &tab;
      o.step = span / count;
      o.fixed_step = true;
      rt::SolveStats stats;
      errs.push_back(solve_error(o, tm, s, &stats));
      hs.push_back(o.step);
      CHECK(stats.accepted_steps == count);
      CHECK(stats.rejected_steps == 0);
    }
    const double slope = loglog_slope(hs, errs);
    INFO("errors " << errs[0] << " " << errs[1] << " " << errs[2] << " " << errs[3] << " slope "
                   << slope);
    CHECK(errs.back() > 1e-13); // still above round-off: the fit measures truncation error
    CHECK(std::abs(slope - tab.order) < 0.2);
  }
}

TEST_CASE("fused step kernels and the generic engine agree", "[convergence]") {
  const Setup s;
  for (const char* name : {"rk4", "midpoint", "dopri5", "tsit5"}) {
    INFO("method " << name);
    const rt::ButcherTableau& tab = *rt::find_tableau(name);
    auto generic = linear_model<double>(kL, kN, kM);
    auto fused = linear_model<double>(kL, kN, kM);
    fused.with_fused(tab);
    rt::SolverOptions o;
    o.tableau = &tab;
    o.step = 0.1;
    o.fixed_step = true;
    o.rtol = 1e-7;
    o.atol = 1e-9;
    for (bool adaptive : {false, true}) {
      if (adaptive && !tab.adaptive()) continue;
      o.fixed_step = !adaptive;
      rt::SolveStats sg, sf;
      const double eg = solve_error(o, generic, s, &sg);
      const double ef = solve_error(o, fused, s, &sf);
      CHECK(std::abs(eg - ef) < 1e-12);
      CHECK(sg.accepted_steps == sf.accepted_steps);
      CHECK(sg.rejected_steps == sf.rejected_steps);
    }
  }
}

TEST_CASE("adaptive methods track the tolerance", "[convergence][adaptive]") {
  const Setup s;
  auto tm = linear_model<double>(kL, kN, kM);
  for (const char* name : {"bosh3", "dopri5", "tsit5"}) {
    INFO("method " << name);
    double previous_error = INFINITY;
    int64_t previous_steps = 0;
    for (double tol : {1e-3, 1e-5, 1e-7, 1e-9}) {
      rt::SolverOptions o;
      o.tableau = rt::find_tableau(name);
      o.rtol = tol;
      o.atol = tol;
      rt::SolveStats stats;
      const double err = solve_error(o, tm, s, &stats);
      INFO("tol " << tol << " error " << err << " steps " << stats.accepted_steps << " rejected "
                  << stats.rejected_steps << " evals " << stats.field_evals);
      CHECK(err < previous_error);
      CHECK(err < 10 * tol);   // the global error stays within a modest factor of the tolerance
      CHECK(err > 1e-4 * tol); // and the controller does not waste work far below it
      CHECK(stats.accepted_steps > previous_steps);
      previous_error = err;
      previous_steps = stats.accepted_steps;
    }
  }
}
