// ODE builders: fused Runge–Kutta steps (every tableau the runtime ships)
// against stage-by-stage evaluation of the field, their VJPs against finite
// differences, and the continuous adjoint system against the field's VJP.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/ode.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/printer.h"
#include "tests/compiler/support/ir_test_util.h"

using namespace plastic;
using namespace plastic::ir;
using interp::Tensor;
using Inputs = std::map<std::string, Tensor<double>>;

namespace {

ad::RkStepOptions static_opt(const char* name) {
  ad::RkStepOptions o;
  o.static_inputs = {name};
  return o;
}
ad::RkStepOptions static_s() {
  return static_opt("s");
}

// The runtime's tableaus, plus two embedded pairs defined here so the
// adaptive path is exercised whatever the runtime ships today.
std::vector<rt::ButcherTableau> tableaus() {
  std::vector<rt::ButcherTableau> v(rt::all_tableaus().begin(), rt::all_tableaus().end());
  v.push_back({"test-heun-euler",
               2,
               2,
               1,
               false,
               {0, 0, 1, 0},
               {0.5, 0.5},
               {0, 1},
               {0.5 - 1, 0.5},
               "Heun/Euler embedded pair"});
  v.push_back({"test-bosh3",
               4,
               3,
               2,
               true,
               {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.75, 0, 0, 2.0 / 9, 1.0 / 3, 4.0 / 9, 0},
               {2.0 / 9, 1.0 / 3, 4.0 / 9, 0},
               {0, 0.5, 0.75, 1},
               {2.0 / 9 - 7.0 / 24, 1.0 / 3 - 0.25, 4.0 / 9 - 1.0 / 3, -0.125},
               "Bogacki–Shampine 3(2)"});
  return v;
}

// A small nonlinear field with two coupled states, a time-varying control
// x(t) and a static feature s:
//   z' = tanh(W z + x ⊙ sin t) − 0.3 z + 0.1 Σ m + s
//   m' = tanh(U z) ⊗ tanh(U z) − 0.5 m
Function coupled_field(Context& ctx) {
  const Node* t = ctx.time();
  const Node* z = ctx.state("z", {3});
  const Node* m = ctx.state("m", {2, 2}, 1);
  const Node* W = ctx.param("W", {3, 3});
  const Node* U = ctx.param("U", {2, 3}, 1);
  const Node* x = ctx.input("x", {3});
  const Node* s = ctx.input("s", {3}, 1);
  const Node* pre = add(matvec(W, z), mul(x, broadcast(sin(t), {3}, {})));
  const Node* dz = add(
      add(sub(tanh(pre), scale(z, 0.3)), broadcast(scale(reduce_sum(m, {0, 1}), 0.1), {3}, {})), s);
  const Node* u = tanh(matvec(U, z));
  const Node* dm = sub(outer(u, u), scale(m, 0.5));
  return Function("coupled", {t, z, m, W, U, x, s}, {{"dz", dz}, {"dm", dm}});
}

Tensor<double> control_at(double t) {
  return Tensor<double>({3}, {std::sin(3 * t), std::cos(t), t * t});
}

struct Point {
  double t = 0.3, h = 0.2;
  Tensor<double> z, m, W, U, s;
};

Point random_point(test::Rng& rng) {
  Point p;
  p.z = test::random_tensor({3}, rng);
  p.m = test::random_tensor({2, 2}, rng);
  p.W = test::random_tensor({3, 3}, rng);
  p.U = test::random_tensor({2, 3}, rng);
  p.s = test::random_tensor({3}, rng);
  return p;
}

Tensor<double> axpy(const Tensor<double>& y, double a, const Tensor<double>& x) {
  Tensor<double> r = y;
  for (size_t i = 0; i < r.data.size(); ++i)
    r.data[i] += a * x.data[i];
  return r;
}

// The RK step computed stage by stage with the interpreter on the field.
std::vector<Tensor<double>> step_by_hand(const Function& field, const rt::ButcherTableau& tab,
                                         const Point& p, std::vector<Tensor<double>>* err) {
  std::vector<std::vector<Tensor<double>>> k;
  for (int i = 0; i < tab.stages; ++i) {
    Tensor<double> zi = p.z, mi = p.m;
    for (int j = 0; j < i; ++j) {
      zi = axpy(zi, p.h * tab.A(i, j), k[static_cast<size_t>(j)][0]);
      mi = axpy(mi, p.h * tab.A(i, j), k[static_cast<size_t>(j)][1]);
    }
    double ti = p.t + tab.c[static_cast<size_t>(i)] * p.h;
    Inputs in{{"t", Tensor<double>::scalar(ti)},
              {"z", zi},
              {"m", mi},
              {"W", p.W},
              {"U", p.U},
              {"x", control_at(ti)},
              {"s", p.s}};
    k.push_back(interp::evaluate(field, in));
  }
  std::vector<Tensor<double>> out{p.z, p.m};
  if (err) *err = {Tensor<double>({3}), Tensor<double>({2, 2})};
  for (int i = 0; i < tab.stages; ++i)
    for (size_t st = 0; st < 2; ++st) {
      out[st] = axpy(out[st], p.h * tab.b[static_cast<size_t>(i)], k[static_cast<size_t>(i)][st]);
      if (err && tab.adaptive())
        (*err)[st] =
            axpy((*err)[st], p.h * tab.e[static_cast<size_t>(i)], k[static_cast<size_t>(i)][st]);
    }
  return out;
}

Inputs step_inputs(const ad::RkStep& step, const Point& p) {
  Inputs in{{"t", Tensor<double>::scalar(p.t)},
            {"step.h", Tensor<double>::scalar(p.h)},
            {"z", p.z},
            {"m", p.m},
            {"W", p.W},
            {"U", p.U},
            {"s", p.s}};
  for (size_t k = 0; k < step.nodes.size(); ++k)
    in[fmt::format("x@{}", k)] = control_at(p.t + step.nodes[k] * p.h);
  return in;
}

double max_rel_diff(const Tensor<double>& a, const Tensor<double>& b) {
  double d = 0, s = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    d = std::max(d, std::abs(a.data[i] - b.data[i]));
    s = std::max(s, std::abs(b.data[i]));
  }
  return d / std::max(s, 1e-300);
}

} // namespace

TEST_CASE("fused RK steps equal stage-by-stage evaluation of the field", "[ode]") {
  REQUIRE(rt::find_tableau("euler"));
  REQUIRE(rt::find_tableau("rk4"));
  for (const rt::ButcherTableau& tab : tableaus()) {
    Context ctx;
    Function field = coupled_field(ctx);
    ad::RkStep step = ad::build_rk_step(field, tab, static_s());
    CHECK(step.adaptive == tab.adaptive());
    CHECK(step.fn.outputs().size() == (tab.adaptive() ? 4u : 2u));
    for (int seed = 0; seed < 5; ++seed) {
      test::Rng rng(static_cast<uint64_t>(seed));
      Point p = random_point(rng);
      std::vector<Tensor<double>> err;
      std::vector<Tensor<double>> want = step_by_hand(field, tab, p, &err);
      std::vector<Tensor<double>> got = interp::evaluate(step.fn, step_inputs(step, p));
      INFO(tab.name << " seed " << seed);
      CHECK(max_rel_diff(got[0], want[0]) < 1e-13);
      CHECK(max_rel_diff(got[1], want[1]) < 1e-13);
      if (tab.adaptive()) {
        CHECK(max_rel_diff(got[2], err[0]) < 1e-9);
        CHECK(max_rel_diff(got[3], err[1]) < 1e-9);
      }
    }
  }
}

TEST_CASE("distinct stage nodes get one control input each", "[ode]") {
  Context ctx;
  Function field = coupled_field(ctx);
  ad::RkStep rk4 = ad::build_rk_step(field, *rt::find_tableau("rk4"), static_s());
  CHECK(rk4.nodes == std::vector<double>{0, 0.5, 1});
  CHECK(rk4.stage_node == std::vector<int>{0, 1, 1, 2});
  CHECK(rk4.controls == std::vector<std::string>{"x@0", "x@1", "x@2"});
  std::vector<std::string> names;
  for (const Node* in : rk4.fn.inputs())
    names.push_back(in->name());
  CHECK(names ==
        std::vector<std::string>{"t", "step.h", "z", "m", "W", "U", "s", "x@0", "x@1", "x@2"});
  CHECK_THROWS_AS(ad::build_rk_step(field, *rt::find_tableau("rk4"), static_opt("W")), IRError);
}

TEST_CASE("step VJPs match finite differences of the step", "[ode]") {
  for (const rt::ButcherTableau& tab : tableaus()) {
    Context ctx;
    Function field = coupled_field(ctx);
    ad::RkStep step = ad::build_rk_step(field, tab, static_s());
    Function vjp = ad::build_step_vjp(step);
    // The VJP seeds only z_{n+1}: compare with FD of a function that has
    // only those outputs.
    std::vector<Output> outs(step.fn.outputs().begin(), step.fn.outputs().begin() + 2);
    Function state_only("step", step.fn.inputs(), outs);
    for (int seed = 0; seed < 6; ++seed) {
      test::Rng rng(static_cast<uint64_t>(100 + seed));
      Point p = random_point(rng);
      Inputs named = step_inputs(step, p);
      std::vector<Tensor<double>> x;
      for (const Node* in : step.fn.inputs())
        x.push_back(named.at(in->name()));
      std::vector<std::string> wrt{"z", "m", "W", "U"};
      wrt.insert(wrt.end(), step.controls.begin(), step.controls.end());
      test::DerivativeErrors e = test::check_derivatives(state_only, x, rng, wrt);
      INFO(tab.name << " seed " << seed << " " << e.where);
      CHECK(e.vjp < 1e-7);
      CHECK(e.jvp < 1e-7);
      // build_step_vjp is the same VJP, with the documented layout.
      Tensor<double> cz = test::random_tensor({3}, rng), cm = test::random_tensor({2, 2}, rng);
      Inputs vin = named;
      vin["ct.z"] = cz;
      vin["ct.m"] = cm;
      std::vector<Tensor<double>> g = interp::evaluate(vjp, vin);
      REQUIRE(g.size() == 4 + step.controls.size());
      CHECK(vjp.outputs()[0].name == "d.z");
      CHECK(vjp.outputs()[4].name == "d." + step.controls[0]);
      // directional check of d.z against FD along a random z direction
      std::vector<Tensor<double>> dir(x.size());
      dir[step.fn.input_index("z")] = test::random_tensor({3}, rng);
      std::vector<Tensor<double>> fd = test::fd_directional(state_only, x, dir);
      double lhs = test::dot(g[0], dir[step.fn.input_index("z")]);
      double rhs = test::dot(cz, fd[0]) + test::dot(cm, fd[1]);
      double scale = test::abs_dot(cz, fd[0]) + test::abs_dot(cm, fd[1]);
      CHECK(std::abs(lhs - rhs) < 1e-7 * scale);
    }
  }
}

TEST_CASE("the adjoint system is the field and minus its VJP", "[ode]") {
  Context ctx;
  Function field = coupled_field(ctx);
  Function adj = ad::adjoint_system(field);
  Function fv = ad::field_vjp(field);
  std::vector<std::string> names;
  for (const Output& o : adj.outputs())
    names.push_back(o.name);
  CHECK(names == std::vector<std::string>{"dz", "dm", "adj.z", "adj.m", "adj.W", "adj.U"});
  for (int seed = 0; seed < 5; ++seed) {
    test::Rng rng(static_cast<uint64_t>(seed));
    Point p = random_point(rng);
    Tensor<double> az = test::random_tensor({3}, rng), am = test::random_tensor({2, 2}, rng);
    Inputs base{{"t", Tensor<double>::scalar(p.t)},
                {"z", p.z},
                {"m", p.m},
                {"W", p.W},
                {"U", p.U},
                {"x", control_at(p.t)},
                {"s", p.s}};
    Inputs ain = base, vin = base;
    ain["a.z"] = az;
    ain["a.m"] = am;
    vin["ct.dz"] = az;
    vin["ct.dm"] = am;
    std::vector<Tensor<double>> A = interp::evaluate(adj, ain);
    std::vector<Tensor<double>> F = interp::evaluate(field, base);
    std::vector<Tensor<double>> V = interp::evaluate(fv, vin); // d.z d.m d.W d.U d.x d.s
    CHECK(max_rel_diff(A[0], F[0]) < 1e-15);
    CHECK(max_rel_diff(A[1], F[1]) < 1e-15);
    for (size_t i = 0; i < 4; ++i) {
      Tensor<double> minus = V[i];
      for (double& v : minus.data)
        v = -v;
      CHECK(max_rel_diff(A[2 + i], minus) < 1e-14);
    }
    // and the field's VJP itself is right
    std::vector<Tensor<double>> x;
    for (const Node* in : field.inputs())
      x.push_back(base.at(in->name()));
    test::DerivativeErrors e = test::check_derivatives(field, x, rng);
    CHECK(e.vjp < 1e-7);
    CHECK(e.jvp < 1e-7);
  }
}

TEST_CASE("fields must return one derivative per state", "[ode]") {
  Context ctx;
  const Node* z = ctx.state("z", {3});
  const Node* y = ctx.state("y", {2}, 1);
  CHECK_THROWS_AS(ad::field_signature(Function("f", {z, y}, {{"dz", z}})), IRError);
  CHECK_THROWS_AS(ad::field_signature(Function("f", {z, y}, {{"dz", z}, {"dy", z}})), IRError);
  CHECK_NOTHROW(ad::field_signature(Function("f", {z, y}, {{"dz", z}, {"dy", exp(y)}})));
}
