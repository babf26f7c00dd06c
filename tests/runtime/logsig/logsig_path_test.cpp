// The neural RDE driver: windows of `step` samples, dx = LogSig / window
// length, x its piecewise-linear integral, missing values forward-filled.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "runtime/logsig/logsig_path.h"
#include "runtime/paths/interpolation.h"
#include "runtime/paths/lanes.h"

using namespace plastic::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Series {
  std::vector<double> t, x;
};

Series random_series(int n, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> gap(0.1, 1.0);
  std::normal_distribution<double> normal;
  Series s;
  s.t.push_back(0.5);
  for (int i = 1; i < n; ++i)
    s.t.push_back(s.t.back() + gap(rng));
  for (int i = 0; i < n * c; ++i)
    s.x.push_back(normal(rng));
  return s;
}

} // namespace

TEST_CASE("windows of step samples / the last one shorter", "[logsig][driver]") {
  const int n = 11, c = 2; // 10 segments
  const auto s = random_series(n, c, 1);
  LogSigOptions o;
  o.depth = 3;
  o.step = 4; // windows [0,4], [4,8], [8,10]
  const LogSigPath path = LogSigPath::make(s.t, s.x, c, o).value();
  REQUIRE(path.windows() == 3);
  REQUIRE(path.channels() == 5); // β(2, 3)
  CHECK(path.knots()[0] == s.t[0]);
  CHECK(path.knots()[1] == s.t[4]);
  CHECK(path.knots()[2] == s.t[8]);
  CHECK(path.knots()[3] == s.t[10]);

  LogSignature engine(c, 3);
  std::vector<double> expect(engine.size()), dx(engine.size());
  const int bounds[4] = {0, 4, 8, 10};
  for (int i = 0; i < 3; ++i) {
    const auto window = std::span<const double>(s.x).subspan(
        static_cast<std::size_t>(bounds[i] * c),
        static_cast<std::size_t>((bounds[i + 1] - bounds[i] + 1) * c));
    engine.compute(window, expect.data());
    const double len = s.t[bounds[i + 1]] - s.t[bounds[i]];
    for (double frac : {0.0, 0.3, 0.99}) {
      const double t = s.t[bounds[i]] + frac * len;
      path.derivative(t, dx.data(), 1, Side::right);
      for (std::size_t k = 0; k < dx.size(); ++k) {
        CHECK(path.window_logsig(i)[k] == Approx(expect[k]).margin(1e-14));
        CHECK(dx[k] == Approx(expect[k] / len).margin(1e-13));
      }
    }
  }
  // With step dividing n-1 no window is short.
  o.step = 5;
  CHECK(LogSigPath::make(s.t, s.x, c, o).value().windows() == 2);
  o.step = 100; // one window holding everything
  CHECK(LogSigPath::make(s.t, s.x, c, o).value().windows() == 1);
}

TEST_CASE("depth 1, step 1 reduces to the linear-interpolation derivative", "[logsig][driver]") {
  // Paper 002 §3.2: the depth-1 log-signature over [t_i, t_{i+1}] divided by
  // its length is the slope of the piecewise-linear interpolation.
  const int n = 8, c = 3;
  const auto s = random_series(n, c, 2);
  LogSigOptions o;
  o.depth = 1;
  const LogSigPath drv = LogSigPath::make(s.t, s.x, c, o).value();
  const CubicPath lin = linear_path(s.t, s.x, c).value();
  std::vector<double> a(c), b(c), va(c), vb(c);
  for (double t = s.t[0] - 0.3; t < s.t.back() + 0.3; t += 0.037) {
    drv.derivative(t, a.data());
    lin.derivative(t, b.data());
    drv.value(t, va.data());
    lin.value(t, vb.data());
    for (int k = 0; k < c; ++k) {
      CHECK(a[k] == Approx(b[k]).margin(1e-12));
      CHECK(va[k] == Approx(vb[k] - s.x[k]).margin(1e-12)); // x(r_0) = 0
    }
  }
}

TEST_CASE("x is continuous and integrates dx / Side picks the window at boundaries",
          "[logsig][driver]") {
  const int n = 13, c = 2;
  const auto s = random_series(n, c, 3);
  LogSigOptions o;
  o.depth = 2;
  o.step = 3;
  const LogSigPath path = LogSigPath::make(s.t, s.x, c, o).value();
  const int beta = path.channels();
  std::vector<double> left(beta), right(beta), dl(beta), dr(beta), total(beta, 0.0);
  for (int i = 1; i < path.windows(); ++i) {
    const double r = path.knots()[i];
    path.value(r, left.data(), 1, Side::left);
    path.value(r, right.data(), 1, Side::right);
    path.derivative(r, dl.data(), 1, Side::left);
    path.derivative(r, dr.data(), 1, Side::right);
    const double len_prev = path.knots()[i] - path.knots()[i - 1];
    const double len_next = path.knots()[i + 1] - path.knots()[i];
    for (int k = 0; k < beta; ++k) {
      CHECK(left[k] == Approx(right[k]).margin(1e-12));
      CHECK(dl[k] == Approx(path.window_logsig(i - 1)[k] / len_prev).margin(1e-12));
      CHECK(dr[k] == Approx(path.window_logsig(i)[k] / len_next).margin(1e-12));
    }
  }
  for (int i = 0; i < path.windows(); ++i)
    for (int k = 0; k < beta; ++k)
      total[k] += path.window_logsig(i)[k];
  path.value(s.t.back(), left.data());
  for (int k = 0; k < beta; ++k)
    CHECK(left[k] == Approx(total[k]).margin(1e-12));
}

TEST_CASE("time rescaling scales dx and leaves the log-signatures alone",
          "[logsig][driver][reparam]") {
  const int n = 9, c = 2;
  auto s = random_series(n, c, 4);
  LogSigOptions o;
  o.depth = 3;
  o.step = 2;
  const LogSigPath a = LogSigPath::make(s.t, s.x, c, o).value();
  for (double& t : s.t)
    t = 3.0 * t + 1.0;
  const LogSigPath b = LogSigPath::make(s.t, s.x, c, o).value();
  std::vector<double> da(a.channels()), db(b.channels());
  for (int i = 0; i < a.windows(); ++i) {
    for (int k = 0; k < a.channels(); ++k)
      CHECK(a.window_logsig(i)[k] == b.window_logsig(i)[k]);
    const double ta = 0.5 * (a.knots()[i] + a.knots()[i + 1]);
    a.derivative(ta, da.data());
    b.derivative(3.0 * ta + 1.0, db.data());
    for (int k = 0; k < a.channels(); ++k)
      CHECK(db[k] == Approx(da[k] / 3.0).margin(1e-13));
  }
}

TEST_CASE("missing values are forward-filled before the log-signatures",
          "[logsig][driver][missing]") {
  // Channel 0: (NaN, 1, NaN, 4, NaN) → back-filled then carried: (1, 1, 1, 4, 4).
  // Channel 1 complete: (0, 1, 2, 3, 4). Depth 1, step 4: one window whose
  // log-signature is the increment (3, 4).
  const std::vector<double> t{0, 1, 2, 3, 4};
  const std::vector<double> x{kNaN, 0, 1, 1, kNaN, 2, 4, 3, kNaN, 4};
  LogSigOptions o;
  o.depth = 2;
  o.step = 4;
  const LogSigPath path = LogSigPath::make(t, x, 2, o).value();
  REQUIRE(path.windows() == 1);
  // Filled path (1,0) (1,1) (1,2) (4,3) (4,4): depth-2 word 01 is the Lévy
  // area ½∫(x0 - x0(0)) dx1 - (x1 - x1(0)) dx0; only segment (1,2)→(4,3)
  // moves x0: ∫ (x1 - 0) dx0 over it = 3·(2+3)/2 = 7.5, ∫ (x0 - 1) dx1 over
  // it = (0+3)/2·1 = 1.5 and over the last segment 3·1 = 3: ½(4.5 - 7.5) = -1.5.
  CHECK(path.window_logsig(0)[0] == Approx(3.0));
  CHECK(path.window_logsig(0)[1] == Approx(4.0));
  CHECK(path.window_logsig(0)[2] == Approx(-1.5));

  // A supplied leading fill (e.g. the dataset mean) replaces the back-fill.
  o.leading_fill = {-2.0, 0.0};
  const LogSigPath with_mean = LogSigPath::make(t, x, 2, o).value();
  CHECK(with_mean.window_logsig(0)[0] == Approx(6.0)); // 4 - (-2)
  o.leading_fill = {1.0};
  CHECK(LogSigPath::make(t, x, 2, o).describe() == "leading_fill has 1 values for 2 channels");
}

TEST_CASE("prepend_time adds the time channel / lanes fill works on drivers",
          "[logsig][driver][lanes]") {
  const int n = 7, c = 1;
  const auto s = random_series(n, c, 6);
  LogSigOptions o;
  o.depth = 2;
  o.step = 3;
  o.prepend_time = true;
  LogSignature engine(2, 2);
  const LogSigPath a = LogSigPath::make(s.t, s.x, c, o, engine).value();
  REQUIRE(a.input_channels() == 2);
  REQUIRE(a.channels() == 3);
  // Depth-1 time coordinate: the window length, so dx_time = 1.
  std::vector<double> dx(3);
  a.derivative(0.5 * (s.t[0] + s.t[3]), dx.data());
  CHECK(dx[0] == Approx(1.0).margin(1e-14));

  const LogSigPath b =
      LogSigPath::make(s.t, std::vector<double>(s.x.rbegin(), s.x.rend()), c, o, engine).value();
  const std::vector<const LogSigPath*> lanes{&a, &b};
  std::vector<double> buf(3 * 2);
  const double t = 0.5 * (s.t[4] + s.t[5]);
  fill_lanes<LogSigPath>(lanes, 3, t, Quantity::derivative, buf.data());
  std::vector<double> one(3);
  b.derivative(t, one.data());
  for (int k = 0; k < 3; ++k)
    CHECK(buf[k * 2 + 1] == one[k]);

  LogSignature wrong(1, 2);
  const auto mismatched = LogSigPath::make(s.t, s.x, c, o, wrong);
  REQUIRE_FALSE(mismatched.ok());
  CHECK(mismatched.error().message.find("log-signature engine is for d=1") != std::string::npos);
}
