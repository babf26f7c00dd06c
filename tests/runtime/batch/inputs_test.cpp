// The input sample u(t) of a tile against direct evaluations of the paths:
// linear, natural cubic and Hermite paths, log-signature drivers (depth 2,
// checked against the Levy area computed here), statics, held lanes.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/batch/prepared_data.h"
#include "runtime/batch/tile.h"
#include "runtime/batch/tile_input.h"
#include "runtime/paths/interpolation.h"
#include "tests/runtime/batch/batch_models.h"

using namespace plastic;

namespace {

struct Tile {
  std::unique_ptr<test::CdeModel<double>> model;
  rt::Dataset data;
  rt::PreparedData prepared;
  rt::TileLayout layout;
};

Tile make_tile(const test::CdeSpec& spec, const std::vector<int>& lengths,
               const std::vector<int64_t>& batch) {
  Tile t;
  t.model = test::make_cde<double>(spec);
  t.data = test::make_data(lengths, spec.d, spec.S, rt::TargetKind::Class, spec.o, 5);
  // Irregular times, shifted start (aligned to 0 by prepare).
  for (rt::Sample& s : t.data.samples)
    for (size_t k = 0; k < s.times.size(); ++k)
      s.times[k] = 3.0 + 0.7 * k + 0.05 * (k * k % 3);
  auto p = rt::prepare(t.model->get(), t.data);
  REQUIRE(p);
  t.prepared = std::move(p.value());
  auto lay = rt::layout_tile(t.prepared, batch, spec.L);
  REQUIRE(lay);
  t.layout = lay.value();
  return t;
}

std::vector<double> shifted_times(const rt::Sample& s) {
  std::vector<double> t(s.times);
  for (double& x : t)
    x -= s.times[0];
  return t;
}

} // namespace

TEST_CASE("path inputs of a tile match runtime/paths for every scheme", "[batch]") {
  const std::pair<int, rt::Interpolation> schemes[] = {{0, rt::Interpolation::linear},
                                                       {1, rt::Interpolation::natural_cubic},
                                                       {2, rt::Interpolation::hermite}};
  for (auto [code, scheme] : schemes) {
    test::CdeSpec spec;
    spec.interp = code;
    spec.S = 2;
    const std::vector<int64_t> batch = {2, 0, 1}; // lane 3 pads
    Tile t = make_tile(spec, {6, 4, 7}, batch);
    rt::TileInput<double> input(t.prepared, t.layout);
    const int L = spec.L, d = spec.d;
    std::vector<double> u(static_cast<size_t>(t.model->get().n_input * L));
    for (double time : {0.0, 0.35, 1.4, 2.2, 2.9, 4.0}) {
      input(rt::InputRequest{time, time - 0.1, time + 0.1}, u.data());
      for (int l = 0; l < 3; ++l) {
        const rt::Sample& s = t.data.samples[static_cast<size_t>(batch[static_cast<size_t>(l)])];
        const std::vector<double> times = shifted_times(s);
        const rt::CubicPath path = rt::make_path(scheme, times, s.values, d).value();
        const double end = times.back();
        std::vector<double> x(static_cast<size_t>(d)), dx(static_cast<size_t>(d));
        path.value(std::min(time, end), x.data());
        path.derivative(time, dx.data());
        for (int c = 0; c < d; ++c) {
          INFO("scheme " << code << " t " << time << " lane " << l << " channel " << c);
          CHECK(u[static_cast<size_t>(c * L + l)] ==
                Approx(x[static_cast<size_t>(c)]).epsilon(1e-14));
          // After its end a lane is held: derivative 0.
          const double want = time > end ? 0.0 : dx[static_cast<size_t>(c)];
          CHECK(u[static_cast<size_t>((d + c) * L + l)] ==
                Approx(want).epsilon(1e-14).margin(1e-15));
        }
        for (int c = 0; c < 2; ++c)
          CHECK(u[static_cast<size_t>((2 * d + c) * L + l)] == s.statics[static_cast<size_t>(c)]);
      }
      // The padding lane repeats sample batch[0], held at its start.
      const rt::Sample& s0 = t.data.samples[static_cast<size_t>(batch[0])];
      for (int c = 0; c < d; ++c) {
        CHECK(u[static_cast<size_t>(c * L + 3)] ==
              Approx(s0.values[static_cast<size_t>(c)]).epsilon(1e-14));
        CHECK(u[static_cast<size_t>((d + c) * L + 3)] == 0.0);
      }
    }
  }
}

TEST_CASE("a knot evaluates the piece the request's interval lies in", "[batch]") {
  test::CdeSpec spec;
  spec.interp = 0; // linear: dx jumps at every data time
  const std::vector<int64_t> batch = {0};
  Tile t = make_tile(spec, {5}, batch);
  const rt::Sample& s = t.data.samples[0];
  const std::vector<double> times = shifted_times(s);
  CHECK(t.layout.knots == std::vector<double>(times.begin() + 1, times.end() - 1));
  rt::TileInput<double> input(t.prepared, t.layout);
  const int L = spec.L;
  std::vector<double> u(static_cast<size_t>(t.model->get().n_input * L));
  const double k = times[2];
  const double slope_left = (s.values[2 * 2] - s.values[1 * 2]) / (times[2] - times[1]);
  const double slope_right = (s.values[3 * 2] - s.values[2 * 2]) / (times[3] - times[2]);
  input(rt::InputRequest{k, times[1], k}, u.data()); // end of a step: from the left
  CHECK(u[static_cast<size_t>(2 * L)] == Approx(slope_left).epsilon(1e-12));
  input(rt::InputRequest{k, k, times[3]}, u.data()); // start of a step: from the right
  CHECK(u[static_cast<size_t>(2 * L)] == Approx(slope_right).epsilon(1e-12));
}

TEST_CASE("log-signature drivers are LogSig of the window over its length (depth 2)", "[batch]") {
  test::CdeSpec spec;
  spec.logsig = true;
  spec.depth = 2;
  spec.step = 3;
  spec.interp = 1; // x(t) natural cubic: no knots of its own
  const std::vector<int64_t> batch = {1, 0};
  Tile t = make_tile(spec, {8, 10}, batch);
  rt::TileInput<double> input(t.prepared, t.layout);
  const int L = spec.L, d = 2, D = 3; // beta(2, 2) = 3: dx1, dx2, Levy area
  std::vector<double> u(static_cast<size_t>(t.model->get().n_input * L));
  for (int l = 0; l < 2; ++l) {
    const rt::Sample& s = t.data.samples[static_cast<size_t>(batch[static_cast<size_t>(l)])];
    const std::vector<double> times = shifted_times(s);
    const size_t n = times.size();
    for (size_t w = 0; w * 3 < n - 1; ++w) {
      const size_t a = w * 3, b = std::min(a + 3, n - 1);
      // Independent depth-2 log-signature of the polygon through samples a..b:
      // increments and the Levy area 1/2 sum (x_k - x_a) x dx_k.
      const double* x = s.values.data();
      double inc[2] = {x[b * 2] - x[a * 2], x[b * 2 + 1] - x[a * 2 + 1]}, area = 0;
      for (size_t k = a; k < b; ++k) {
        const double r0 = x[k * 2] - x[a * 2], r1 = x[k * 2 + 1] - x[a * 2 + 1];
        const double d0 = x[(k + 1) * 2] - x[k * 2], d1 = x[(k + 1) * 2 + 1] - x[k * 2 + 1];
        area += 0.5 * (r0 * d1 - r1 * d0);
      }
      const double len = times[b] - times[a];
      const double mid = 0.5 * (times[a] + times[b]);
      input(rt::InputRequest{mid, times[a], times[b]}, u.data());
      INFO("lane " << l << " window " << w);
      CHECK(u[static_cast<size_t>((d + 0) * L + l)] == Approx(inc[0] / len).epsilon(1e-12));
      CHECK(u[static_cast<size_t>((d + 1) * L + l)] == Approx(inc[1] / len).epsilon(1e-12));
      CHECK(u[static_cast<size_t>((d + 2) * L + l)] == Approx(area / len).epsilon(1e-12));
      // x(t) of a logsig input is the data path (here a natural cubic spline).
      const rt::CubicPath path = rt::natural_cubic_path(times, s.values, d).value();
      std::vector<double> xv(2);
      path.value(mid, xv.data());
      CHECK(u[static_cast<size_t>(0 * L + l)] == Approx(xv[0]).epsilon(1e-14));
      CHECK(u[static_cast<size_t>(1 * L + l)] == Approx(xv[1]).epsilon(1e-14));
    }
  }
  // The knots are exactly the interior window boundaries of both lanes.
  std::vector<double> want;
  for (int64_t i : batch) {
    const std::vector<double> ti = shifted_times(t.data.samples[static_cast<size_t>(i)]);
    for (size_t k = 3; k < ti.size() - 1; k += 3)
      want.push_back(ti[k]);
  }
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  CHECK(t.layout.knots == want);
  (void)D;
}
