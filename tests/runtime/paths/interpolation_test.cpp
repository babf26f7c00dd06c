// Control paths: each interpolation scheme interpolates the data, has the
// smoothness and end conditions its construction promises, reproduces what
// it should reproduce exactly, and has dx = d/dt x. The natural spline is
// also checked against an independent dense solve of the classic
// second-derivative formulation.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "runtime/paths/interpolation.h"

using namespace plastic::rt;

namespace {

std::vector<double> irregular_times(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> gap(0.2, 1.5);
  std::vector<double> t{-0.7};
  for (int i = 1; i < n; ++i)
    t.push_back(t.back() + gap(rng));
  return t;
}

std::vector<double> random_values(int n, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> x(static_cast<std::size_t>(n * c));
  for (double& v : x)
    v = normal(rng);
  return x;
}

// Second derivative of interval k's cubic at local s.
double second_derivative(const CubicPath& p, int k, int ch, double s) {
  const auto c = p.interval_coeffs(k);
  const int C = p.channels();
  return 2.0 * c[static_cast<std::size_t>(2 * C + ch)] +
         6.0 * s * c[static_cast<std::size_t>(3 * C + ch)];
}

// Natural cubic spline value at t from the textbook M (second derivative)
// formulation, solved densely with Eigen: an oracle independent of the
// tridiagonal first-derivative system the runtime uses.
double natural_spline_oracle(const std::vector<double>& t, const std::vector<double>& y, double x) {
  const int n = static_cast<int>(t.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd r = Eigen::VectorXd::Zero(n);
  A(0, 0) = 1.0;
  A(n - 1, n - 1) = 1.0;
  for (int i = 1; i < n - 1; ++i) {
    const double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
    A(i, i - 1) = h0;
    A(i, i) = 2.0 * (h0 + h1);
    A(i, i + 1) = h1;
    r(i) = 6.0 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0);
  }
  const Eigen::VectorXd M = A.fullPivLu().solve(r);
  int k = 0;
  while (k < n - 2 && x > t[k + 1])
    ++k;
  const double h = t[k + 1] - t[k], a = t[k + 1] - x, b = x - t[k];
  return M(k) * a * a * a / (6 * h) + M(k + 1) * b * b * b / (6 * h) +
         (y[k] / h - M(k) * h / 6) * a + (y[k + 1] / h - M(k + 1) * h / 6) * b;
}

} // namespace

TEST_CASE("every scheme interpolates the data at the knots", "[paths]") {
  const int n = 9, c = 3;
  const auto t = irregular_times(n, 1);
  const auto x = random_values(n, c, 2);
  for (auto scheme :
       {Interpolation::natural_cubic, Interpolation::hermite, Interpolation::linear}) {
    INFO(interpolation_name(scheme));
    const CubicPath p = make_path(scheme, t, x, c).value();
    REQUIRE(p.channels() == c);
    REQUIRE(p.intervals() == n - 1);
    for (int i = 0; i < n; ++i)
      for (int ch = 0; ch < c; ++ch) {
        CHECK(p.value(t[i], ch, Side::left) == Approx(x[i * c + ch]).margin(1e-12));
        CHECK(p.value(t[i], ch, Side::right) == Approx(x[i * c + ch]).margin(1e-12));
      }
  }
}

TEST_CASE("dx is the time derivative of x (central differences)", "[paths]") {
  const int n = 8, c = 2;
  const auto t = irregular_times(n, 3);
  const auto x = random_values(n, c, 4);
  const double h = 1e-6;
  for (auto scheme :
       {Interpolation::natural_cubic, Interpolation::hermite, Interpolation::linear}) {
    INFO(interpolation_name(scheme));
    const CubicPath p = make_path(scheme, t, x, c).value();
    for (int k = 0; k < n - 1; ++k)
      for (double frac : {0.13, 0.5, 0.91}) {
        const double s = t[k] + frac * (t[k + 1] - t[k]);
        for (int ch = 0; ch < c; ++ch) {
          const double fd = (p.value(s + h, ch) - p.value(s - h, ch)) / (2 * h);
          CHECK(p.derivative(s, ch) == Approx(fd).margin(1e-7));
        }
      }
  }
}

TEST_CASE("the natural spline matches an independent dense solve", "[paths][cubic]") {
  const int n = 11;
  const auto t = irregular_times(n, 5);
  const auto y = random_values(n, 1, 6);
  const CubicPath p = natural_cubic_path(t, y, 1).value();
  for (int k = 0; k < n - 1; ++k)
    for (double frac : {0.0, 0.25, 0.6, 0.99}) {
      const double s = t[k] + frac * (t[k + 1] - t[k]);
      CHECK(p.value(s, 0) == Approx(natural_spline_oracle(t, y, s)).margin(1e-12));
    }
}

TEST_CASE("a channel's spline is bitwise the same alone and among others", "[paths][cubic]") {
  // Channels observed at every time are solved together (natural_cubic.cpp);
  // one with interior NaN alone, one never observed is zero. None may change
  // another's coefficients, nor differ from its own single-channel path.
  const int n = 13, c = 4;
  const auto t = irregular_times(n, 21);
  auto y = random_values(n, c, 22);
  y[size_t(5 * c + 1)] = NAN; // channel 1: an interior gap
  y[size_t(6 * c + 1)] = NAN;
  y[size_t(0 * c + 3)] = NAN; // channel 3: a leading gap, filled: every time a knot
  const CubicPath all = natural_cubic_path(t, y, c).value();
  for (int ch = 0; ch < c; ++ch) {
    std::vector<double> one(n);
    for (int i = 0; i < n; ++i)
      one[size_t(i)] = y[size_t(i * c + ch)];
    const CubicPath alone = natural_cubic_path(t, one, 1).value();
    for (int k = 0; k < n - 1; ++k)
      for (int q = 0; q < 4; ++q)
        CHECK(all.interval_coeffs(k)[size_t(q * c + ch)] == alone.interval_coeffs(k)[size_t(q)]);
  }
}

TEST_CASE("the natural spline is C2 with zero end curvature", "[paths][cubic]") {
  const int n = 10, c = 2;
  const auto t = irregular_times(n, 7);
  const auto x = random_values(n, c, 8);
  const CubicPath p = natural_cubic_path(t, x, c).value();
  for (int ch = 0; ch < c; ++ch) {
    CHECK(second_derivative(p, 0, ch, 0.0) == Approx(0.0).margin(1e-12));
    CHECK(second_derivative(p, n - 2, ch, t[n - 1] - t[n - 2]) == Approx(0.0).margin(1e-10));
    for (int k = 1; k < n - 1; ++k) {
      const double h = t[k] - t[k - 1];
      CHECK(p.derivative(t[k], ch, Side::left) ==
            Approx(p.derivative(t[k], ch, Side::right)).margin(1e-11));
      CHECK(second_derivative(p, k - 1, ch, h) ==
            Approx(second_derivative(p, k, ch, 0.0)).margin(1e-10));
    }
  }
}

TEST_CASE("linear data are reproduced exactly by every scheme", "[paths]") {
  const int n = 7;
  const auto t = irregular_times(n, 9);
  std::vector<double> x;
  for (double ti : t)
    x.push_back(2.5 * ti - 1.25);
  for (auto scheme :
       {Interpolation::natural_cubic, Interpolation::hermite, Interpolation::linear}) {
    INFO(interpolation_name(scheme));
    const CubicPath p = make_path(scheme, t, x, 1).value();
    for (double s = t.front(); s <= t.back(); s += 0.173) {
      CHECK(p.value(s, 0) == Approx(2.5 * s - 1.25).margin(1e-12));
      CHECK(p.derivative(s, 0) == Approx(2.5).margin(1e-12));
    }
  }
}

TEST_CASE("Hermite with backward differences: C1, backward slopes, causal", "[paths][hermite]") {
  const int n = 8;
  const auto t = irregular_times(n, 10);
  auto x = random_values(n, 1, 11);
  const CubicPath p = hermite_path(t, x, 1).value();
  auto secant = [&](int k) { return (x[k + 1] - x[k]) / (t[k + 1] - t[k]); };
  CHECK(p.derivative(t[0], 0) == Approx(secant(0)).margin(1e-12));
  for (int k = 1; k < n - 1; ++k) {
    // The slope at knot k is the backward difference m_{k-1}, from both sides.
    CHECK(p.derivative(t[k], 0, Side::right) == Approx(secant(k - 1)).margin(1e-11));
    CHECK(p.derivative(t[k], 0, Side::left) == Approx(secant(k - 1)).margin(1e-11));
  }
  // Causality: changing x_5 leaves the path on [t_0, t_4] untouched.
  x[5] += 3.0;
  const CubicPath q = hermite_path(t, x, 1).value();
  for (double s = t[0]; s <= t[4]; s += 0.05)
    CHECK(q.value(s, 0) == p.value(s, 0));
  CHECK(q.value(0.5 * (t[4] + t[5]), 0) != p.value(0.5 * (t[4] + t[5]), 0));
}

TEST_CASE("Hermite does not reproduce quadratics (backward slopes lag)", "[paths][hermite]") {
  // Documented limitation of the scheme: with x = t², the slope used at t_k
  // is the secant of [t_{k-1}, t_k], t_{k-1} + t_k, not 2 t_k. On [2, 3]
  // the cubic has slopes 3 and 5 at the ends: p(s) = 4 + 3s + 4s² - 2s³,
  // and p(s) - (2+s)² = -s(1-s)(1-2s): exact at the midpoint only.
  const std::vector<double> t{0, 1, 2, 3};
  const std::vector<double> x{0, 1, 4, 9};
  const CubicPath p = hermite_path(t, x, 1).value();
  CHECK(p.derivative(2.0, 0, Side::right) == Approx(3.0).margin(1e-12));
  CHECK(p.value(2.25, 0) == Approx(5.0625 - 0.09375).margin(1e-12));
  CHECK(p.value(2.5, 0) == Approx(6.25).margin(1e-12));
}

TEST_CASE("linear path: one-sided derivatives at knots and extension beyond the ends",
          "[paths][linear]") {
  const std::vector<double> t{0, 1, 3};
  const std::vector<double> x{0, 2, 3};
  const CubicPath p = linear_path(t, x, 1).value();
  CHECK(p.derivative(1.0, 0, Side::left) == Approx(2.0));
  CHECK(p.derivative(1.0, 0, Side::right) == Approx(0.5));
  CHECK(p.derivative(0.0, 0, Side::left) == Approx(2.0));  // the first knot belongs to interval 0
  CHECK(p.derivative(3.0, 0, Side::right) == Approx(0.5)); // the last knot to the last interval
  // torchcde clamps the interval index: the end pieces extend.
  CHECK(p.value(-1.0, 0) == Approx(-2.0));
  CHECK(p.value(5.0, 0) == Approx(4.0));
  CHECK(p.derivative(5.0, 0) == Approx(0.5));
}

TEST_CASE("natural spline extrapolates with its end cubics", "[paths][cubic]") {
  const int n = 6;
  const auto t = irregular_times(n, 12);
  const auto x = random_values(n, 1, 13);
  const CubicPath p = natural_cubic_path(t, x, 1).value();
  const auto first = p.interval_coeffs(0);
  const double s = -0.8; // before t_0
  CHECK(p.value(t[0] + s, 0) ==
        Approx(first[0] + s * (first[1] + s * (first[2] + s * first[3]))).margin(1e-12));
}

TEST_CASE("invalid observations are rejected", "[paths]") {
  const std::vector<double> one{0.0}, x1{1.0};
  CHECK(linear_path(one, x1, 1).describe() == "a path needs >= 2 observation times, got 1");
  const std::vector<double> t{0.0, 0.0}, x2{1.0, 2.0};
  CHECK(natural_cubic_path(t, x2, 1).describe() ==
        "observation times must be strictly increasing: t[1] = 0 follows t[0] = 0");
  const std::vector<double> t2{0.0, 1.0};
  CHECK(hermite_path(t2, x1, 1).describe() == "expected 2 x 1 values, got 1"); // too few values
  CHECK(parse_interpolation("cubic") == Interpolation::natural_cubic);
  CHECK(!parse_interpolation("spline").has_value());
}

TEST_CASE("x and dx in one pass are bitwise the two evaluations", "[paths][cubic]") {
  // evaluate_both feeds a model that reads x(t) and dx(t) of one path; it
  // must give the numbers of evaluate() for each, at knots from either side,
  // inside intervals and past the ends, into strided (lane-interleaved) buffers.
  const int n = 11, c = 5, stride = 3;
  const auto t = irregular_times(n, 41);
  const CubicPath path = natural_cubic_path(t, random_values(n, c, 42), c).value();
  std::vector<double> queries{t.front() - 0.3, t.back() + 0.4};
  for (int i = 0; i < n; ++i) {
    queries.push_back(t[size_t(i)]);
    if (i + 1 < n) queries.push_back(0.3 * t[size_t(i)] + 0.7 * t[size_t(i + 1)]);
  }
  for (Side side : {Side::left, Side::right}) {
    int hint_both = -1, hint_value = -1, hint_derivative = -1;
    for (double q : queries) {
      std::vector<float> value(c * stride, -1.0F), derivative(c * stride, -1.0F);
      std::vector<float> value_alone(c * stride, -1.0F), derivative_alone(c * stride, -1.0F);
      path.evaluate_both(q, value.data(), derivative.data(), stride, side, &hint_both);
      path.evaluate(q, Quantity::value, value_alone.data(), stride, side, &hint_value);
      path.evaluate(q, Quantity::derivative, derivative_alone.data(), stride, side,
                    &hint_derivative);
      INFO("t = " << q);
      CHECK(value == value_alone);
      CHECK(derivative == derivative_alone);
      CHECK(hint_both == hint_value);
    }
  }
}
