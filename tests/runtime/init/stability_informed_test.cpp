// Stability-informed initialisation, Westny et al. (paper 004) Sec. 4 and
// Algorithm 1. For every accepted network the test recomputes, on its own,
// the linearised field A = W_n ... W_1 (state columns; Eq. 5 with kappa = 1),
// its eigenvalues (Eigen::ComplexEigenSolver, a different algorithm from the
// initialiser's EigenSolver) and |R(h lambda)| with R written out per method
// (Eq. 3's truncated exponential for s = p <= 4; Dormand–Prince's known
// degree-6 polynomial), and checks the stability criterion, the sampling box
// of Algorithm 1, the biases of Eq. 13 and the failure reports.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "runtime/init/init.h"
#include "runtime/init/stability_polynomial.h"
#include "tests/runtime/init/init_test_util.h"

using namespace plastic::rt;
using namespace plastic::rt::test;
using cd = std::complex<double>;

namespace {

constexpr double kMargin = 1e-2; // Algorithm 1's epsilon (authors' default)

/// R(z) of each method, written independently of the tableau code.
double amplification(const std::string& method, cd z) {
  auto taylor = [&](int p) {
    cd term = 1.0, sum = 1.0;
    for (int k = 1; k <= p; ++k) {
      term *= z / static_cast<double>(k);
      sum += term;
    }
    return sum;
  };
  if (method == "euler") return std::abs(taylor(1));
  if (method == "midpoint" || method == "heun") return std::abs(taylor(2));
  if (method == "rk3") return std::abs(taylor(3));
  if (method == "rk4") return std::abs(taylor(4));
  if (method == "dopri5") return std::abs(taylor(5) + std::pow(z, 6) / 600.0);
  FAIL("no reference stability polynomial for " << method);
  return 0;
}

/// An MLP [x; u] (dx + du) -> hidden x (layers-1) -> dx, weights and biases
/// interleaved in init_index order as a compiler would list them.
struct Mlp {
  std::vector<plastic_param> params;
  std::vector<std::pair<int64_t, int64_t>> dims; // (rows, cols) per weight
  std::vector<int64_t> weight_offsets, bias_offsets;
  size_t theta_size = 0;
};

Mlp make_mlp(int64_t dx, int64_t du, int64_t hidden, int layers, std::vector<double> args,
             int32_t group = 3) {
  static std::deque<std::string> names; // stable addresses keep c_str() alive for the tables
  Mlp m;
  int64_t offset = 0, in = dx + du;
  for (int l = 0; l < layers; ++l) {
    const int64_t out = (l + 1 == layers) ? dx : hidden;
    names.push_back("f.w" + std::to_string(l));
    plastic_param w = make_param(names.back().c_str(), {out, in}, offset,
                                 PLASTIC_INIT_STABILITY_INFORMED, {}, in, out, group, 2 * l);
    names.push_back("f.b" + std::to_string(l));
    plastic_param b = make_param(names.back().c_str(), {out}, offset + out * in,
                                 PLASTIC_INIT_STABILITY_INFORMED, {}, in, out, group, 2 * l + 1);
    for (int k = 0; k < 4; ++k)
      w.init_args[k] = b.init_args[k] = args[static_cast<size_t>(k)];
    m.dims.emplace_back(out, in);
    m.weight_offsets.push_back(offset);
    m.bias_offsets.push_back(offset + out * in);
    offset += out * in + out;
    m.params.push_back(w);
    m.params.push_back(b);
    in = out;
  }
  m.theta_size = static_cast<size_t>(offset);
  return m;
}

/// Eigenvalues of A = W_n ... W_1[:, :dx], recomputed from theta.
template <class T>
std::vector<cd> field_eigenvalues(const Mlp& m, const std::vector<T>& theta, int64_t dx) {
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::MatrixXd a;
  for (size_t l = 0; l < m.dims.size(); ++l) {
    const auto [r, c] = m.dims[l];
    RowMat w(r, c);
    for (int64_t k = 0; k < r * c; ++k)
      w.data()[k] = static_cast<double>(theta[static_cast<size_t>(m.weight_offsets[l] + k)]);
    a = (l == 0) ? Eigen::MatrixXd(w.leftCols(dx)) : Eigen::MatrixXd(w * a);
  }
  Eigen::ComplexEigenSolver<Eigen::MatrixXd> es(a);
  REQUIRE(es.info() == Eigen::Success);
  std::vector<cd> ev(es.eigenvalues().data(), es.eigenvalues().data() + es.eigenvalues().size());
  return ev;
}

template <class T>
plastic::Result<InitReport, TrainError> run(const Mlp& m, std::vector<T>& theta, uint64_t seed,
                                            const std::string& solver) {
  InitOptions o;
  o.solver = solver;
  return initialise_parameters(std::span<const plastic_param>(m.params), std::span<T>(theta), seed,
                               o);
}

} // namespace

TEST_CASE("paper 004 Alg. 1: every accepted network's eigenvalues lie in the solver's "
          "stability region (Eq. 3)",
          "[init][stability]") {
  int complex_seen = 0, checked = 0;
  for (const std::string solver : {"euler", "midpoint", "rk3", "rk4", "dopri5"}) {
    for (double h : {0.05, 0.5, 1.0}) {
      for (double use_complex : {0.0, 1.0}) {
        for (uint64_t seed = 1; seed <= 4; ++seed) {
          const int64_t dx = 5, du = 2;
          const Mlp m = make_mlp(dx, du, 16, 3, {h, 0.0, 0.0, use_complex});
          std::vector<double> theta(m.theta_size, 0.0);
          auto r = run(m, theta, seed, solver);
          INFO(solver << " h " << h << " complex " << use_complex << " seed " << seed << ": "
                      << r.describe());
          REQUIRE(r.ok());
          auto ev = field_eigenvalues(m, theta, dx);
          REQUIRE(ev.size() == static_cast<size_t>(dx));
          for (cd lam : ev) {
            // Algorithm 1 accepted z = h lambda with |R(z)| < 1 - eps; round-off only.
            CHECK(amplification(solver, h * lam) < 1.0 - kMargin + 1e-9);
            // The sampling box: Re z in (-3, -0.1), |Im z| < 3.
            CHECK(h * lam.real() < -0.1 + 1e-9);
            CHECK(h * lam.real() > -3.0 - 1e-9);
            CHECK(std::abs(h * lam.imag()) < 3.0 + 1e-9);
            if (use_complex == 0.0) CHECK(std::abs(lam.imag()) < 1e-9 * std::abs(lam));
            complex_seen += std::abs(lam.imag()) > 1e-6;
            ++checked;
          }
          // The report's eigenvalues are these.
          const auto& g = r.value().stability_groups.at(0);
          // Match each recomputed eigenvalue to the nearest unused reported one
          // (sorting is fragile: a conjugate pair's real parts differ by round-off).
          auto reported = g.eigenvalues;
          REQUIRE(reported.size() == ev.size());
          for (cd lam : ev) {
            auto nearest = std::min_element(reported.begin(), reported.end(), [&](cd a, cd b) {
              return std::abs(a - lam) < std::abs(b - lam);
            });
            CHECK(std::abs(*nearest - lam) < 1e-9 * (1 + std::abs(lam)));
            reported.erase(nearest);
          }
          CHECK(g.max_amplification < 1.0 - kMargin + 1e-9);
          CHECK(g.draws - g.rejected >= (use_complex != 0.0 ? 3 : dx));
        }
      }
    }
  }
  CHECK(checked == 5 * 3 * 2 * 4 * 5);
  CHECK(complex_seen > 0); // use_complex does produce conjugate pairs
}

TEST_CASE("paper 004 Eqs. 9, 12, 13: dense weights, input columns, biases in U(-1e-4, 1e-4)",
          "[init][stability]") {
  const int64_t dx = 4, du = 3;
  const Mlp m = make_mlp(dx, du, 12, 3, {0.1, 0.0, 0.0, 1.0});
  std::vector<double> theta(m.theta_size, 0.0);
  auto r = run(m, theta, 17, "rk4");
  REQUIRE(r.ok());
  for (size_t l = 0; l < m.dims.size(); ++l) {
    const auto [rows, cols] = m.dims[l];
    for (int64_t k = 0; k < rows * cols; ++k) // Pi_i makes every weight nonzero (Sec. 4.1)
      CHECK(theta[static_cast<size_t>(m.weight_offsets[l] + k)] != 0.0);
    for (int64_t k = 0; k < rows; ++k) {
      const double b = theta[static_cast<size_t>(m.bias_offsets[l] + k)];
      CHECK(std::abs(b) <= 1e-4);
      CHECK(b != 0.0);
    }
  }
  // The input block is nonzero: the field depends on u (Eq. 12's nu).
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMat> w0(theta.data(), 12, dx + du);
  CHECK(w0.rightCols(du).cwiseAbs().maxCoeff() > 0.0);
}

TEST_CASE("paper 004: stability_informed in f32 checks the rounded weights", "[init][stability]") {
  const int64_t dx = 6;
  const Mlp m = make_mlp(dx, 0, 32, 4, {0.2, 0.0, 0.0, 1.0});
  std::vector<float> theta(m.theta_size, 0.0f);
  auto r = run(m, theta, 2, "rk4");
  REQUIRE(r.ok());
  for (cd lam : field_eigenvalues(m, theta, dx))
    CHECK(amplification("rk4", 0.2 * lam) < 1.0 - kMargin / 2);
}

TEST_CASE("paper 004: a one-layer field is W_1 = Lambda_1", "[init][stability]") {
  const int64_t dx = 3;
  const Mlp m = make_mlp(dx, 1, 0, 1, {0.5, 0.0, 0.0, 0.0});
  std::vector<double> theta(m.theta_size, 0.0);
  auto r = run(m, theta, 8, "euler");
  REQUIRE(r.ok());
  for (cd lam : field_eigenvalues(m, theta, dx))
    CHECK(amplification("euler", 0.5 * lam) < 1.0 - kMargin + 1e-9);
}

TEST_CASE("paper 004: impossible or malformed requests are reported, never a crash",
          "[init][stability]") {
  auto expect_error = [](const Mlp& m, const std::string& solver, const char* needle) {
    std::vector<double> theta(m.theta_size, 9.5);
    auto r = run(m, theta, 1, solver);
    REQUIRE_FALSE(r.ok());
    INFO(r.describe());
    CHECK_THAT(r.error().describe(), Catch::Contains(needle));
    for (double x : theta)
      REQUIRE(x == 9.5); // nothing written
  };
  // tries = 1 cannot give 4 real eigenvalues (Algorithm 1 needs 4 accepted draws).
  expect_error(make_mlp(4, 0, 8, 2, {0.1, 0.0, 1.0, 0.0}), "rk4", "no stable sample after 1 draws");
  expect_error(make_mlp(4, 0, 8, 2, {-0.1, 0.0, 0.0, 0.0}), "rk4", "step h must be positive");
  expect_error(make_mlp(4, 0, 8, 2, {std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0, 0.0}),
               "rk4", "step h must be positive");
  expect_error(make_mlp(4, 0, 8, 2, {0.1, 0.05, 0.0, 0.0}), "rk4", "sampling radius");
  expect_error(make_mlp(4, 0, 3, 3, {0.1, 0.0, 0.0, 0.0}), "rk4", "narrower than the state");
  expect_error(make_mlp(4, 0, 8, 2, {0.1, 0.0, 0.0, 0.0}), "rk17", "unknown solver 'rk17'");

  // An absurd step in f32: every weight underflows to 0, the eigenvalue
  // check rejects each network until the tries run out.
  const Mlp m = make_mlp(4, 0, 8, 3, {1e300, 0.0, 200.0, 0.0});
  std::vector<float> theta(m.theta_size, 9.5f);
  auto r = run(m, theta, 1, "rk4");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().describe(), Catch::Contains("failed the eigenvalue check"));
  for (float x : theta)
    REQUIRE(x == 9.5f);
}

TEST_CASE("stability polynomials from the tableaus: Eq. 3 for s = p <= 4, DOPRI5's z^6/600",
          "[init][stability]") {
  using init_detail::stability_polynomial;
  const std::vector<double> taylor = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120};
  for (auto [name, p] : {std::pair{"euler", 1}, std::pair{"midpoint", 2}, std::pair{"heun", 2},
                         std::pair{"rk3", 3}, std::pair{"rk4", 4}}) {
    const auto c = stability_polynomial(*find_tableau(name));
    INFO(name);
    REQUIRE(c.size() == static_cast<size_t>(p) + 1);
    for (int k = 0; k <= p; ++k)
      CHECK(c[static_cast<size_t>(k)] == Approx(taylor[static_cast<size_t>(k)]).epsilon(1e-14));
  }
  const auto d = stability_polynomial(*find_tableau("dopri5"));
  REQUIRE(d.size() == 7);
  for (int k = 0; k <= 5; ++k)
    CHECK(d[static_cast<size_t>(k)] == Approx(taylor[static_cast<size_t>(k)]).epsilon(1e-12));
  CHECK(d[6] == Approx(1.0 / 600).epsilon(1e-10));
}
