// Critical initialisation, Kim, Can & Krishnamurthy (paper 003) Sec. 4 and
// App. A: weights N(0, sigma_w*^2 / N_l) (Eq. 5 / Eq. 14) with
// sigma_w* = sqrt(2^(1-1/L)) (Eq. 60), biases N(0, 1e-6) (App. H.2-H.4);
// and the property the choice is made for: with ReLU the squared spectral
// radius of the MLP's input-output Jacobian, <1/N tr J^T J> (Eqs. 40-41), is 1.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "runtime/init/init.h"
#include "runtime/support/rng.h"
#include "tests/runtime/init/init_test_util.h"

using namespace plastic::rt;
using namespace plastic::rt::test;

namespace {

std::vector<double> run(const std::vector<plastic_param>& t, size_t n, uint64_t seed = 1) {
  std::vector<double> theta(n);
  auto r = initialise_parameters(std::span<const plastic_param>(t), std::span<double>(theta), seed);
  INFO(r.describe());
  REQUIRE(r.ok());
  return theta;
}

void check_normal_var(std::span<const double> x, double var) {
  const Moments m = moments(x);
  const double sd = std::sqrt(var);
  CHECK(std::abs(m.mean) < kSigmas * normal_se_mean(sd, m.n));
  CHECK(std::abs(m.var - var) < kSigmas * normal_se_var(sd, m.n));
}

} // namespace

TEST_CASE("paper 003 Eq. 5 + Eq. 60: W ~ N(0, 2^(1-1/L) / fan_in)", "[init][critical]") {
  for (int layers : {1, 2, 3, 5}) {
    auto p = make_param("w", {512, 512}, 0, PLASTIC_INIT_CRITICAL, {0.0, double(layers)}, 256, 512);
    const auto x = run({p}, 512 * 512);
    INFO("L = " << layers);
    check_normal_var(x, std::pow(2.0, 1.0 - 1.0 / layers) / 256.0);
  }
}

TEST_CASE("paper 003 Sec. 4: an explicit sigma_w overrides Eq. 60", "[init][critical]") {
  auto p = make_param("w", {512, 512}, 0, PLASTIC_INIT_CRITICAL, {1.5, 3.0}, 100, 512);
  check_normal_var(run({p}, 512 * 512), 2.25 / 100.0);
}

TEST_CASE("paper 003: depth L from the init_group, biases N(0, 1e-6) (App. H.2)",
          "[init][critical]") {
  // An L = 3 MLP 64 -> 256 -> 256 -> 64 (App. H: two hidden layers, L_h = 3).
  std::vector<plastic_param> t = {
      make_param("F.w0", {256, 64}, 0, PLASTIC_INIT_CRITICAL, {}, 64, 256, 7, 0),
      make_param("F.b0", {256}, 16384, PLASTIC_INIT_CRITICAL, {}, 64, 256, 7, 1),
      make_param("F.w1", {256, 256}, 16640, PLASTIC_INIT_CRITICAL, {}, 256, 256, 7, 2),
      make_param("F.b1", {256}, 82176, PLASTIC_INIT_CRITICAL, {}, 256, 256, 7, 3),
      make_param("F.w2", {64, 256}, 82432, PLASTIC_INIT_CRITICAL, {}, 256, 64, 7, 4),
      make_param("F.b2", {64}, 98816, PLASTIC_INIT_CRITICAL, {}, 256, 64, 7, 5),
  };
  const auto x = run(t, 98880);
  const double s2 = std::pow(2.0, 2.0 / 3.0); // sigma_w*^2 for L = 3
  auto slice = [&](const plastic_param& p) {
    return std::span<const double>(x).subspan(static_cast<size_t>(p.offset),
                                              static_cast<size_t>(p.size));
  };
  check_normal_var(slice(t[0]), s2 / 64);
  check_normal_var(slice(t[2]), s2 / 256);
  check_normal_var(slice(t[4]), s2 / 256);
  // All three bias vectors together: 576 samples of N(0, 1e-6).
  std::vector<double> b;
  for (int i : {1, 3, 5})
    for (double v : slice(t[static_cast<size_t>(i)]))
      b.push_back(v);
  check_normal_var(std::span<const double>(b), 1e-6);
}

TEST_CASE("paper 003 Eqs. 40-41: at sigma_w* a ReLU MLP has <1/N tr J^T J> = 1",
          "[init][critical]") {
  // Kaiming scaling (alpha = beta = 0), C_phi' = 1/2 for ReLU (Eq. 44):
  // rho^2 = sigma_w^(2L) (1/2)^(L-1) = 1 exactly at Eq. 60. Estimated here
  // from finite networks: mean over seeds, tolerance kSigmas standard errors
  // of that mean (estimated from the same draws).
  const int64_t n = 64, hdim = 512;
  const int layers = 3;
  std::vector<plastic_param> t = {
      make_param("w0", {hdim, n}, 0, PLASTIC_INIT_CRITICAL, {}, n, hdim, 0, 0),
      make_param("w1", {hdim, hdim}, hdim * n, PLASTIC_INIT_CRITICAL, {}, hdim, hdim, 0, 1),
      make_param("w2", {n, hdim}, hdim * n + hdim * hdim, PLASTIC_INIT_CRITICAL, {}, hdim, n, 0, 2),
  };
  const size_t total = static_cast<size_t>(2 * hdim * n + hdim * hdim);
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<double> samples;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const auto x = run(t, total, seed);
    Eigen::Map<const RowMat> w0(x.data(), hdim, n), w1(x.data() + hdim * n, hdim, hdim),
        w2(x.data() + hdim * n + hdim * hdim, n, hdim);
    Rng rng(1000 + seed);
    Eigen::VectorXd h(n);
    for (int64_t i = 0; i < n; ++i)
      h(i) = rng.normal();
    const Eigen::VectorXd a1 = w0 * h;
    const Eigen::VectorXd a2 = w1 * a1.cwiseMax(0.0);
    const Eigen::VectorXd d1 = (a1.array() > 0).cast<double>(),
                          d2 = (a2.array() > 0).cast<double>();
    const Eigen::MatrixXd j = w2 * d2.asDiagonal() * w1 * d1.asDiagonal() * w0;
    samples.push_back(j.squaredNorm() / static_cast<double>(n));
  }
  const Moments m = moments(std::span<const double>(samples));
  INFO("rho^2 estimates: mean " << m.mean << " sd " << std::sqrt(m.var) << " layers " << layers);
  CHECK(std::abs(m.mean - 1.0) < kSigmas * std::sqrt(m.var / m.n));
}

TEST_CASE("paper 003: critical without a depth is reported", "[init][critical]") {
  auto p = make_param("w", {4, 4}, 0, PLASTIC_INIT_CRITICAL, {}, 4, 4);
  std::vector<double> theta(16, 0.0);
  auto r =
      initialise_parameters(std::span<const plastic_param>(&p, 1), std::span<double>(theta), 1);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().describe(), Catch::Contains("depth L"));
}
