// The elementwise initialisers against their distributions (torch.nn.init
// conventions, runtime/abi.h): moments of a 512 x 512 tensor within
// kSigmas standard errors, hard bounds of the uniform kinds, exact values of
// zeros / ones / constant.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <vector>

#include "runtime/init/init.h"
#include "tests/runtime/init/init_test_util.h"

using namespace plastic::rt;
using namespace plastic::rt::test;

namespace {

constexpr int64_t kRows = 512, kCols = 512, kN = kRows * kCols;

std::vector<double> init_one(const plastic_param& p, uint64_t seed = 7) {
  std::vector<double> theta(static_cast<size_t>(p.size));
  auto r =
      initialise_parameters(std::span<const plastic_param>(&p, 1), std::span<double>(theta), seed);
  REQUIRE(r.ok());
  return theta;
}

void check_uniform(const std::vector<double>& x, double a) {
  const Moments m = moments(std::span<const double>(x));
  CHECK(m.min >= -a);
  CHECK(m.max < a);
  // The extremes come close to the bounds: P(max < a(1 - 1e-4)) ~ exp(-13).
  CHECK(m.max > a * (1 - 1e-4));
  CHECK(m.min < -a * (1 - 1e-4));
  CHECK(std::abs(m.mean) < kSigmas * uniform_se_mean(a, m.n));
  CHECK(std::abs(m.var - a * a / 3) < kSigmas * uniform_se_var(a, m.n));
}

void check_normal(const std::vector<double>& x, double mean, double sd) {
  const Moments m = moments(std::span<const double>(x));
  CHECK(std::abs(m.mean - mean) < kSigmas * normal_se_mean(sd, m.n));
  CHECK(std::abs(m.var - sd * sd) < kSigmas * normal_se_var(sd, m.n));
}

} // namespace

TEST_CASE("uniform_fan_in is PyTorch Linear's U(-1/sqrt(fan_in), 1/sqrt(fan_in))", "[init]") {
  // fan_in differs from the shape on purpose: the table's fan decides.
  auto p = make_param("w", {kRows, kCols}, 0, PLASTIC_INIT_UNIFORM_FAN_IN, {}, 100, 7);
  check_uniform(init_one(p), 0.1);
  // A bias vector uses the same bound (torch: bound = 1/sqrt(fan_in) for the bias too).
  auto b = make_param("b", {kN}, 0, PLASTIC_INIT_UNIFORM_FAN_IN, {}, 100, 0);
  check_uniform(init_one(b), 0.1);
}

TEST_CASE("glorot_uniform: U(-a, a), a = gain sqrt(6/(fan_in+fan_out))", "[init]") {
  auto p = make_param("w", {kRows, kCols}, 0, PLASTIC_INIT_GLOROT_UNIFORM, {}, 300, 500);
  check_uniform(init_one(p), std::sqrt(6.0 / 800.0));
  p.init_args[0] = 2.5;
  check_uniform(init_one(p), 2.5 * std::sqrt(6.0 / 800.0));
}

TEST_CASE("glorot_normal: N(0, gain^2 2/(fan_in+fan_out))", "[init]") {
  auto p = make_param("w", {kRows, kCols}, 0, PLASTIC_INIT_GLOROT_NORMAL, {}, 300, 500);
  check_normal(init_one(p), 0.0, std::sqrt(2.0 / 800.0));
  p.init_args[0] = 0.5;
  check_normal(init_one(p), 0.0, 0.5 * std::sqrt(2.0 / 800.0));
}

TEST_CASE("kaiming_uniform: U(-a, a), a = gain sqrt(3/fan_in), gain 0 -> sqrt 2", "[init]") {
  auto p = make_param("w", {kRows, kCols}, 0, PLASTIC_INIT_KAIMING_UNIFORM, {}, 64, 32);
  check_uniform(init_one(p), std::sqrt(6.0 / 64.0));
  p.init_args[0] = 1.0;
  check_uniform(init_one(p), std::sqrt(3.0 / 64.0));
}

TEST_CASE("kaiming_normal: N(0, gain^2/fan_in), gain 0 -> sqrt 2", "[init]") {
  auto p = make_param("w", {kRows, kCols}, 0, PLASTIC_INIT_KAIMING_NORMAL, {}, 64, 32);
  check_normal(init_one(p), 0.0, std::sqrt(2.0 / 64.0));
}

TEST_CASE("normal(std, mean) and uniform(lo, hi)", "[init]") {
  auto n = make_param("n", {kRows, kCols}, 0, PLASTIC_INIT_NORMAL, {0.02, -3.0});
  check_normal(init_one(n), -3.0, 0.02);
  auto u = make_param("u", {kRows, kCols}, 0, PLASTIC_INIT_UNIFORM, {1.0, 5.0});
  const auto x = init_one(u);
  const Moments m = moments(std::span<const double>(x));
  CHECK(m.min >= 1.0);
  CHECK(m.max < 5.0);
  CHECK(std::abs(m.mean - 3.0) < kSigmas * uniform_se_mean(2.0, m.n));
  CHECK(std::abs(m.var - 4.0 / 3.0) < kSigmas * uniform_se_var(2.0, m.n));
}

TEST_CASE("zeros, ones and constant are exact", "[init]") {
  for (auto [kind, value, arg] :
       {std::tuple{PLASTIC_INIT_ZEROS, 0.0, 0.0}, std::tuple{PLASTIC_INIT_ONES, 1.0, 0.0},
        std::tuple{PLASTIC_INIT_CONSTANT, -0.375, -0.375}}) {
    auto p = make_param("c", {3, 5, 7}, 0, kind, {arg});
    for (double x : init_one(p))
      REQUIRE(x == value);
  }
}

TEST_CASE("missing fans and bad arguments are reported, not guessed", "[init]") {
  std::vector<double> theta(12, 42.0);
  auto check_fails = [&](const plastic_param& p, const char* needle) {
    auto r =
        initialise_parameters(std::span<const plastic_param>(&p, 1), std::span<double>(theta), 1);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().describe(), Catch::Contains(needle));
    for (double x : theta)
      CHECK(x == 42.0); // nothing written on failure
  };
  check_fails(make_param("w", {3, 4}, 0, PLASTIC_INIT_GLOROT_UNIFORM, {}, 4, 0), "fan_out");
  check_fails(make_param("w", {3, 4}, 0, PLASTIC_INIT_KAIMING_NORMAL, {}, 0, 3), "fan_in");
  check_fails(make_param("w", {3, 4}, 0, PLASTIC_INIT_NORMAL, {-1.0, 0.0}), "std");
  check_fails(make_param("w", {3, 4}, 0, PLASTIC_INIT_UNIFORM, {2.0, 1.0}), "lo <= hi");
  check_fails(make_param("w", {3, 4}, 0, 99), "unknown initialiser kind 99");
}
