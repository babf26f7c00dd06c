// Orthogonal initialisation (torch.nn.init.orthogonal_, batched over the
// leading dims): W^T W = gain^2 I for tall/square matrices and W W^T =
// gain^2 I for wide ones, to 1e-10 in f64; Haar statistics show the
// sign correction is applied.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "runtime/init/init.h"
#include "tests/runtime/init/init_test_util.h"

using namespace plastic::rt;
using namespace plastic::rt::test;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T> std::vector<T> init_one(const plastic_param& p, uint64_t seed = 3) {
  std::vector<T> theta(static_cast<size_t>(p.size));
  auto r = initialise_parameters(std::span<const plastic_param>(&p, 1), std::span<T>(theta), seed);
  REQUIRE(r.ok());
  return theta;
}

/// Largest deviation of the Gram matrix of every batch entry from gain^2 I.
template <class T>
double gram_error(const std::vector<T>& x, int64_t batch, int64_t rows, int64_t cols, double gain) {
  double worst = 0;
  for (int64_t b = 0; b < batch; ++b) {
    RowMat w(rows, cols);
    for (int64_t k = 0; k < rows * cols; ++k)
      w.data()[k] = static_cast<double>(x[static_cast<size_t>(b * rows * cols + k)]);
    const Eigen::MatrixXd g =
        rows >= cols ? Eigen::MatrixXd(w.transpose() * w) : Eigen::MatrixXd(w * w.transpose());
    const auto n = g.rows();
    worst =
        std::max(worst, (g - gain * gain * Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff());
  }
  return worst;
}

} // namespace

TEST_CASE("orthogonal: tall, wide, square and batched shapes are semi-orthogonal (f64)",
          "[init][orthogonal]") {
  struct Case {
    std::initializer_list<int64_t> shape;
    int64_t batch, rows, cols;
  };
  for (double gain : {1.0, 1.5}) {
    for (const Case& c :
         {Case{{6, 4}, 1, 6, 4}, Case{{3, 7}, 1, 3, 7}, Case{{5, 5}, 1, 5, 5},
          Case{{2, 3, 5, 4}, 6, 5, 4}, Case{{2, 3, 8}, 2, 3, 8}, Case{{64, 200}, 1, 64, 200}}) {
      auto p = make_param("q", c.shape, 0, PLASTIC_INIT_ORTHOGONAL, {gain});
      const auto x = init_one<double>(p);
      INFO("gain " << gain << " batch " << c.batch << " " << c.rows << "x" << c.cols);
      CHECK(gram_error(x, c.batch, c.rows, c.cols, gain) < 1e-10);
    }
  }
}

TEST_CASE("orthogonal: gain 0 means the default gain 1, and f32 is orthogonal to rounding",
          "[init][orthogonal]") {
  auto p = make_param("q", {4, 9, 6}, 0, PLASTIC_INIT_ORTHOGONAL, {});
  CHECK(gram_error(init_one<double>(p), 4, 9, 6, 1.0) < 1e-10);
  CHECK(gram_error(init_one<float>(p), 4, 9, 6, 1.0) < 1e-6);
}

TEST_CASE("orthogonal: batch entries differ and Q(0,0) is symmetric about 0 (Haar, sign "
          "correction)",
          "[init][orthogonal]") {
  // For a Haar-distributed 4x4 Q, Q(0,0) = g_00/|g_0| has mean 0 and variance
  // 1/4. Without the sign correction Householder QR returns -|g_00|/|g_0|,
  // mean ~ -0.46: far outside the band below.
  const int64_t batch = 4000;
  auto p = make_param("q", {batch, 4, 4}, 0, PLASTIC_INIT_ORTHOGONAL, {1.0});
  const auto x = init_one<double>(p);
  double mean = 0, var = 0;
  for (int64_t b = 0; b < batch; ++b)
    mean += x[static_cast<size_t>(b * 16)];
  mean /= batch;
  for (int64_t b = 0; b < batch; ++b)
    var += std::pow(x[static_cast<size_t>(b * 16)] - mean, 2);
  var /= batch - 1;
  CHECK(std::abs(mean) < kSigmas * std::sqrt(0.25 / batch));
  // Var of Q(0,0) = 1/4; its fourth moment is 3/(n(n+2)) = 1/8, so se(s^2) = sqrt((1/8 - 1/16)/N).
  CHECK(std::abs(var - 0.25) < kSigmas * std::sqrt((0.125 - 0.0625) / batch));
  CHECK(x[0] != x[16]);
}

TEST_CASE("orthogonal: a vector is an error", "[init][orthogonal]") {
  auto p = make_param("v", {8}, 0, PLASTIC_INIT_ORTHOGONAL, {1.0});
  std::vector<double> theta(8, 0.0);
  auto r =
      initialise_parameters(std::span<const plastic_param>(&p, 1), std::span<double>(theta), 1);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().describe(), Catch::Contains("rank >= 2"));
}
