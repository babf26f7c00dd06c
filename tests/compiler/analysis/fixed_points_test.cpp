// The fixed-point finder (compiler/analysis/fixed_points.h) on fields whose
// fixed points are known in closed form: z' = z − z³ per coordinate (roots
// −1, 0, 1: stable where f' = −2, unstable where f' = 1), the same with a
// held input, a linear saddle spread over two state variables, and a line
// of marginally stable points (a continuous attractor, paper 003 Sec. 6.1).
// Also the flow field's principal plane (flow.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "compiler/abi/layout.h"
#include "compiler/analysis/fixed_points.h"
#include "compiler/analysis/flow.h"
#include "compiler/model/model_functions.h"

using namespace plastic;
using analysis::FixedPointKind;

namespace {

struct Model {
  model::ModelFunctions fns;
  abi::ModelLayout layout;
  std::vector<double> theta;
};

Model build(const std::string& name, const std::string& flows) {
  const std::string text = "model " + name +
                           "\n"
                           "input x : path[2] linear\n"
                           "input y : target[2] per observation\n"
                           "param c : [2] init zeros\n" +
                           flows +
                           "loss mse(pred, y)\n"
                           "solve rk4 step 0.1\n" // flow.h follows 200 steps: t = 20

                           "gradient direct\n";
  model::BuildStatus status = model::BuildStatus::Ok;
  auto fns = model::build_model_functions_from_source(name + ".ode", text, {}, status);
  REQUIRE(fns);
  Model m{std::move(*fns), {}, {}};
  m.layout = abi::compute_layout(m.fns);
  m.theta.assign(static_cast<size_t>(m.layout.n_params), 0.0);
  return m;
}

// z' = z − z³ + x + c per coordinate.
Model cubic() {
  return build("cubic", "state z : [2] = x(t0)\n"
                        "flow z' = z - z * z * z + x(t) + c\n"
                        "output pred = z per observation\n");
}

const analysis::FixedPoint* at(const analysis::FixedPointReport& r, double a, double b) {
  for (const analysis::FixedPoint& p : r.points)
    if (std::abs(p.z[0] - a) < 1e-6 && std::abs(p.z[1] - b) < 1e-6) return &p;
  return nullptr;
}

} // namespace

TEST_CASE("z' = z - z^3: nine fixed points classified by their spectra", "[analysis]") {
  Model m = cubic();
  analysis::FixedPointOptions o;
  o.starts = 100;
  const analysis::FixedPointReport r = analysis::find_fixed_points(m.fns, m.layout, m.theta, o);
  CHECK(r.starts == 100);
  CHECK(r.state_size == 2);
  // Every start converges to a root: Newton on a cubic with simple roots.
  CHECK(r.to_fixed == 100);
  REQUIRE(r.points.size() == 9);
  CHECK(r.count(FixedPointKind::Stable, false) == 4);
  CHECK(r.count(FixedPointKind::Saddle, false) == 4);
  CHECK(r.count(FixedPointKind::Unstable, false) == 1);
  int64_t hits = 0;
  for (double a : {-1.0, 0.0, 1.0})
    for (double b : {-1.0, 0.0, 1.0}) {
      const analysis::FixedPoint* p = at(r, a, b);
      INFO("fixed point (" << a << ", " << b << ")");
      REQUIRE(p);
      CHECK_FALSE(p->slow);
      CHECK(p->speed <= 1e-8);
      hits += p->hits;
      CHECK(p->outputs == p->z); // the readout: pred = z
      // f'(z) = 1 − 3z²: −2 at ±1, 1 at 0 (the Jacobian is diagonal).
      REQUIRE(p->lambda.size() == 2);
      std::vector<double> expected = {1 - 3 * a * a, 1 - 3 * b * b};
      std::sort(expected.rbegin(), expected.rend());
      for (size_t i = 0; i < 2; ++i) {
        CHECK(p->lambda[i].real() == Approx(expected[i]).margin(1e-9));
        CHECK(p->lambda[i].imag() == Approx(0).margin(1e-12));
      }
      const int unstable = (a == 0) + (b == 0);
      CHECK(p->unstable == unstable);
      CHECK(p->kind == (unstable == 0   ? FixedPointKind::Stable
                        : unstable == 1 ? FixedPointKind::Saddle
                                        : FixedPointKind::Unstable));
    }
  CHECK(hits == 100); // merging loses no start
}

TEST_CASE("the input is held at --input: z' = z - z^3 + 1/2 has one stable root", "[analysis]") {
  Model m = cubic();
  analysis::FixedPointOptions o;
  o.starts = 30;
  o.input = 0.5;
  const analysis::FixedPointReport r = analysis::find_fixed_points(m.fns, m.layout, m.theta, o);
  REQUIRE(r.points.size() == 1);
  const analysis::FixedPoint& p = r.points[0];
  // The real root of z³ − z − 1/2 = 0 (Cardano: one real root since the
  // discriminant 4 − 27/4 < 0).
  const double q = 0.25, s = std::sqrt(q * q - 1.0 / 27);
  const double root = std::cbrt(q + s) + std::cbrt(q - s);
  CHECK(root * root * root - root - 0.5 == Approx(0).margin(1e-12));
  CHECK(p.z[0] == Approx(root).epsilon(1e-10));
  CHECK(p.z[1] == Approx(root).epsilon(1e-10));
  CHECK(p.kind == FixedPointKind::Stable);
  CHECK(p.lambda[0].real() == Approx(1 - 3 * root * root).epsilon(1e-8));
}

TEST_CASE("a linear saddle over two state variables", "[analysis]") {
  // u' = u + v, v' = −2v: J = [[1, 1], [0, −2]], eigenvalues 1 and −2.
  Model m = build("saddle", "state u : [1] = x(t0)[0:1]\n"
                            "state v : [1] = 0\n"
                            "flow u' = u + v + c[0:1]\n"
                            "flow v' = -2 * v + c[1:2]\n"
                            "output pred = concat(u, v) per observation\n");
  analysis::FixedPointOptions o;
  o.starts = 20;
  const analysis::FixedPointReport r = analysis::find_fixed_points(m.fns, m.layout, m.theta, o);
  REQUIRE(r.points.size() == 1);
  const analysis::FixedPoint& p = r.points[0];
  CHECK(std::abs(p.z[0]) < 1e-10);
  CHECK(std::abs(p.z[1]) < 1e-10);
  CHECK(p.kind == FixedPointKind::Saddle);
  CHECK(p.unstable == 1);
  CHECK(p.lambda[0].real() == Approx(1.0));
  CHECK(p.lambda[1].real() == Approx(-2.0));
  CHECK(p.spectral_radius() == Approx(2.0));
  int64_t hits = 0;
  for (const analysis::FixedPoint& q : r.points)
    hits += q.hits;
  CHECK(hits == 20);
}

TEST_CASE("a line of marginally stable fixed points", "[analysis]") {
  // u' = u v, v' = −v: every (u, 0) is fixed, J = [[0, u], [0, −1]] there.
  Model m = build("line", "state u : [1] = x(t0)[0:1]\n"
                          "state v : [1] = 0\n"
                          "flow u' = u * v + c[0:1]\n"
                          "flow v' = -v + c[1:2]\n"
                          "output pred = concat(u, v) per observation\n");
  analysis::FixedPointOptions o;
  o.starts = 12;
  const analysis::FixedPointReport r = analysis::find_fixed_points(m.fns, m.layout, m.theta, o);
  CHECK(r.points.size() >= 6); // distinct starts end at distinct points of the line
  for (const analysis::FixedPoint& p : r.points) {
    CHECK(std::abs(p.z[1]) < 1e-8);
    CHECK(p.kind == FixedPointKind::Marginal);
    CHECK(p.marginal == 1);
    CHECK(p.unstable == 0);
    CHECK(p.lambda[1].real() == Approx(-1.0));
  }
}

TEST_CASE("classify: the marginal band is relative to the spectral radius", "[analysis]") {
  analysis::FixedPoint p;
  p.lambda = {{-100.0, 0.0}, {-0.05, 0.0}, {-3.0, 2.0}, {-3.0, -2.0}};
  analysis::classify(p, 1e-3); // ε = 0.1
  CHECK(p.kind == FixedPointKind::Marginal);
  CHECK(p.marginal == 1);
  CHECK(p.lambda.front().real() == -0.05); // sorted, largest real part first
  analysis::classify(p, 1e-4);             // ε = 0.01
  CHECK(p.kind == FixedPointKind::Stable);
  p.lambda.push_back({0.5, 0.0});
  analysis::classify(p, 1e-4);
  CHECK(p.kind == FixedPointKind::Saddle);
  CHECK(p.unstable == 1);
}

TEST_CASE("the flow plane holds the trajectories' spread", "[analysis]") {
  Model m = cubic();
  analysis::FlowOptions o;
  o.samples = 6;
  o.grid = 5;
  const analysis::FlowField f = analysis::flow_field(m.fns, m.layout, m.theta, o);
  REQUIRE(f.trajectories.size() == 6);
  CHECK(f.arrows.size() == 25);
  // A two-dimensional state: the two PCs span it, orthonormal.
  CHECK(f.explained[0] + f.explained[1] == Approx(1.0));
  CHECK(f.explained[0] >= f.explained[1]);
  double dot = 0, n0 = 0, n1 = 0;
  for (size_t i = 0; i < 2; ++i) {
    dot += f.axes[0][i] * f.axes[1][i];
    n0 += f.axes[0][i] * f.axes[0][i];
    n1 += f.axes[1][i] * f.axes[1][i];
  }
  CHECK(dot == Approx(0).margin(1e-12));
  CHECK(n0 == Approx(1.0));
  CHECK(n1 == Approx(1.0));
  // Trajectories of z' = z − z³ settle on the stable points (±1, ±1).
  for (const auto& path : f.trajectories) {
    std::vector<double> end = f.mean;
    for (size_t i = 0; i < 2; ++i)
      end[i] += path.back()[0] * f.axes[0][i] + path.back()[1] * f.axes[1][i];
    CHECK(std::abs(std::abs(end[0]) - 1) < 1e-3);
    CHECK(std::abs(std::abs(end[1]) - 1) < 1e-3);
  }
  // The arrow at a grid point is the field projected on the plane: here
  // the plane is the whole space, so its length is ‖f‖.
  for (const analysis::FlowArrow& a : f.arrows)
    CHECK(std::hypot(a.da, a.db) == Approx(a.speed).margin(1e-12));
}
