// Lane-interleaved tiles: a tile of L lanes must give what L separate
// one-lane solves give (bit for bit at fixed step, where nothing couples the
// lanes; within the tolerance when adaptive, because the tile shares one
// step size), and its parameter cotangent must be the sum over the lanes.
// The adaptive step's error norm is checked against its lane-by-lane
// definition bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/solvers/tile_ops.h"
#include "tests/runtime/solvers/gradient_case.h"

namespace {

using namespace plastic;
using namespace plastic::test;

constexpr int kL = 4;

struct TileRun {
  std::vector<double> z, theta_bar, outputs;
  rt::SolveStats stats;
};

/// Solves lanes [first, first+L) of the reference data with a model of L lanes.
TileRun run(int L, int first, const rt::SolverOptions& o, bool with_gradient) {
  auto tm = delta_model<double>(L);
  const int n = tm.ctx->n, P = tm.ctx->P, on = tm.ctx->o;
  const std::vector<double> theta = random_values(static_cast<size_t>(P), 7, -0.9, 0.9);
  const std::vector<double> all_z0 = random_values(static_cast<size_t>(n * kL), 8, -0.5, 0.5);
  const std::vector<double> all_target = random_values(static_cast<size_t>(on * kL), 9, -0.5, 0.5);
  std::vector<double> z0(static_cast<size_t>(n * L)), target(static_cast<size_t>(on * L));
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < L; ++l)
      z0[static_cast<size_t>(i * L + l)] = all_z0[static_cast<size_t>(i * kL + first + l)];
  for (int i = 0; i < on; ++i)
    for (int l = 0; l < L; ++l)
      target[static_cast<size_t>(i * L + l)] = all_target[static_cast<size_t>(i * kL + first + l)];
  const double end[1] = {3.0};
  const std::vector<rt::Observation<double>> obs = {{1.5, ~rt::LaneMask{0}, target.data(), true},
                                                    {3.0, ~rt::LaneMask{0}, target.data(), false}};
  rt::TileProblem<double> p;
  p.model = tm.get();
  p.theta = theta.data();
  p.t_end = end;
  p.observations = obs;
  p.input = wave_input<double>(L, 2, 1.0, first);
  TileRun r;
  r.z = z0;
  r.outputs.assign(static_cast<size_t>(2 * on * L), 0.0);
  const rt::SolveResult s = rt::solve(p, o, r.z.data(), r.outputs.data());
  REQUIRE(s.ok());
  r.stats = s.stats;
  if (with_gradient) {
    r.theta_bar.assign(static_cast<size_t>(P), 0.0);
    rt::GradientOutputs<double> out;
    out.theta_bar = r.theta_bar.data();
    REQUIRE(rt::gradient_direct(p, o, z0.data(), out).ok());
  }
  return r;
}

} // namespace

TEST_CASE("a tile of L lanes equals L one-lane solves (fixed step)", "[tiles]") {
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("rk4");
  o.step = 0.05;
  const TileRun tile = run(kL, 0, o, true);
  std::vector<double> summed(tile.theta_bar.size(), 0.0);
  const int n = 6, on = 3;
  for (int l = 0; l < kL; ++l) {
    const TileRun one = run(1, l, o, true);
    for (int i = 0; i < n; ++i)
      CHECK(one.z[static_cast<size_t>(i)] == tile.z[static_cast<size_t>(i * kL + l)]);
    for (int k = 0; k < 2 * on; ++k)
      CHECK(one.outputs[static_cast<size_t>(k)] == tile.outputs[static_cast<size_t>(k * kL + l)]);
    for (size_t i = 0; i < summed.size(); ++i)
      summed[i] += one.theta_bar[i];
    CHECK(one.stats.accepted_steps == tile.stats.accepted_steps);
  }
  // The tile sums the lanes' parameter cotangents (in another order: round-off only).
  CHECK(relative_error(tile.theta_bar, summed) < 1e-14);
}

TEST_CASE("an adaptive tile agrees with one-lane solves within the tolerance",
          "[tiles][adaptive]") {
  rt::SolverOptions o;
  o.tableau = rt::find_tableau("dopri5");
  o.rtol = o.atol = 1e-8;
  const TileRun tile = run(kL, 0, o, false);
  int64_t most_steps = 0;
  for (int l = 0; l < kL; ++l) {
    const TileRun one = run(1, l, o, false);
    for (int i = 0; i < 6; ++i)
      CHECK(std::abs(one.z[static_cast<size_t>(i)] - tile.z[static_cast<size_t>(i * kL + l)]) <
            1e-7);
    most_steps = std::max(most_steps, one.stats.accepted_steps);
  }
  // Per-tile control: the tile needs at least roughly the steps of its hardest lane.
  CHECK(tile.stats.accepted_steps >= most_steps - 2);
}

TEST_CASE("f32 tiles run and agree with f64", "[tiles][f32]") {
  auto m64 = linear_model<double>(kL, 3);
  auto m32 = linear_model<float>(kL, 3);
  const std::vector<double> theta = linear_theta(3, 2), z0 = random_values(3 * kL, 3);
  const std::vector<float> theta32 = cast_values<float>(theta);
  std::vector<double> z = z0;
  std::vector<float> z32 = cast_values<float>(z0);
  const double end[1] = {2.0};
  for (const char* name : {"rk4", "tsit5"}) {
    rt::SolverOptions o;
    o.tableau = rt::find_tableau(name);
    o.step = 0.05;
    o.rtol = 1e-5;
    o.atol = 1e-6;
    rt::TileProblem<double> p;
    p.model = m64.get();
    p.theta = theta.data();
    p.t_end = end;
    p.input = cos_sin_input<double>(kL);
    rt::TileProblem<float> p32;
    p32.model = m32.get();
    p32.theta = theta32.data();
    p32.t_end = end;
    p32.input = cos_sin_input<float>(kL);
    z = z0;
    z32 = cast_values<float>(z0);
    REQUIRE(rt::solve(p, o, z.data()).ok());
    REQUIRE(rt::solve(p32, o, z32.data()).ok());
    for (size_t i = 0; i < z.size(); ++i)
      CHECK(std::abs(z32[i] - z[i]) < 1e-4);
    // The model's dtype is checked: an f32 table refuses an f64 solve.
    rt::TileProblem<double> wrong = p;
    wrong.model = m32.get();
    const rt::SolveResult r = rt::solve(wrong, o, z.data());
    CHECK(r.status.error().kind == rt::FailureKind::InvalidModel);
  }
}

namespace {

// Hairer's RMS norm of one lane, written out element by element in double:
// what rt::tile::rms_error_norm must give bit for bit, in every target clone
// (an FMA contracted only in the AVX-512 one would make the accepted steps
// depend on the machine).
template <class T>
double lane_norm(int64_t n, int L, int l, const T* err, const T* z0, const T* z1, double rtol,
                 double atol) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i * L + l);
    const double a = z0[k], b = z1[k];
    const double scale = atol + rtol * std::max(std::abs(a), std::abs(b));
    const double r = static_cast<double>(err[k]) / scale;
    const double rr = r * r;
    sum += rr;
  }
  return std::sqrt(sum / static_cast<double>(n));
}

template <class T> void check_norm(int L) {
  const int64_t n = 1601; // not a multiple of any vector width
  const size_t count = static_cast<size_t>(n * L);
  auto as_t = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
  std::vector<T> err = as_t(random_values(count, 21, -1e-4, 1e-4));
  std::vector<T> z0 = as_t(random_values(count, 22, -3, 3));
  std::vector<T> z1 = as_t(random_values(count, 23, -3, 3));
  z1[static_cast<size_t>(7 * L + 1)] = std::numeric_limits<T>::quiet_NaN(); // lane 1
  z1[static_cast<size_t>(n * L - 1)] = std::numeric_limits<T>::infinity();  // lane L - 1
  const rt::LaneMask all = rt::all_lanes(L);
  for (rt::LaneMask mask : {all, all & ~rt::LaneMask{0b11}, all & ~(rt::LaneMask{1} << (L - 1))}) {
    rt::tile::LaneMax got;
    rt::tile::rms_error_norm(n, L, mask, err.data(), z0.data(), z1.data(), 1e-5, 1e-7, got);
    rt::tile::LaneMax want;
    for (int l = 0; l < L; ++l)
      if (rt::has_lane(mask, l))
        want.take(l == 1 || l == L - 1
                      ? INFINITY
                      : lane_norm(n, L, l, err.data(), z0.data(), z1.data(), 1e-5, 1e-7),
                  l);
    INFO("L = " << L << ", mask " << mask);
    CHECK(got.lane == want.lane);
    CHECK(got.value == want.value); // bit for bit, not within a tolerance
  }
}

} // namespace

TEST_CASE("the adaptive error norm is the lane-by-lane RMS norm bit for bit", "[tiles]") {
  for (int L : {2, 4, 8, 16, 64}) {
    check_norm<float>(L);
    check_norm<double>(L);
  }
}
