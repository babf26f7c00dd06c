// Metrics: AUROC against hand cases and a brute-force pairwise count,
// stable losses against naive formulas where those are safe.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "runtime/support/rng.h"
#include "runtime/train/metrics.h"

using namespace plastic::rt;

namespace {
/// P(positive score > negative score) + 1/2 P(equal), over all pairs.
double brute_auroc(const std::vector<double>& s, const std::vector<int64_t>& y) {
  double num = 0, pairs = 0;
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < s.size(); ++j)
      if (y[i] == 1 && y[j] == 0) {
        pairs += 1;
        num += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
      }
  return num / pairs;
}
} // namespace

TEST_CASE("AUROC hand cases with ties", "[metrics]") {
  // sklearn's roc_auc_score documentation example.
  CHECK(auroc<double>(std::vector<double>{0.1, 0.4, 0.35, 0.8}, std::vector<int64_t>{0, 0, 1, 1})
            .value() == 0.75);
  // All tied: every pair counts 1/2.
  CHECK(auroc<double>(std::vector<double>{0.5, 0.5, 0.5, 0.5}, std::vector<int64_t>{0, 1, 0, 1})
            .value() == 0.5);
  // One tie (1/2) and one win (1) over two pairs.
  CHECK(auroc<float>(std::vector<float>{1, 1, 2}, std::vector<int64_t>{0, 1, 1}).value() == 0.75);
  // Perfect and reversed.
  CHECK(auroc<double>(std::vector<double>{0, 1, 2, 3}, std::vector<int64_t>{0, 0, 1, 1}).value() ==
        1.0);
  CHECK(auroc<double>(std::vector<double>{3, 2, 1, 0}, std::vector<int64_t>{0, 0, 1, 1}).value() ==
        0.0);
  // Infinite scores are ordinary extremes.
  CHECK(
      auroc<double>(std::vector<double>{-INFINITY, INFINITY}, std::vector<int64_t>{0, 1}).value() ==
      1.0);
}

TEST_CASE("AUROC equals the pairwise probability and ignores monotone transforms", "[metrics]") {
  Rng rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 5 + rng.below(200);
    std::vector<double> s(n);
    std::vector<int64_t> y(n);
    for (size_t i = 0; i < n; ++i) {
      // Coarse scores force many ties; labels correlate with scores.
      s[i] = std::round(rng.normal() * 4) / 4;
      y[i] = rng.uniform() < 1 / (1 + std::exp(-s[i])) ? 1 : 0;
    }
    y[0] = 0;
    y[1] = 1;
    const double a = auroc<double>(s, y).value();
    CHECK(a == Approx(brute_auroc(s, y)).epsilon(1e-14));
    std::vector<double> t(n);
    for (size_t i = 0; i < n; ++i)
      t[i] = std::exp(3 * s[i]) + 7; // strictly increasing
    CHECK(auroc<double>(t, y).value() == a);
    for (size_t i = 0; i < n; ++i)
      t[i] = s[i] * s[i] * s[i] - 2;
    CHECK(auroc<double>(t, y).value() == a);
  }
}

TEST_CASE("AUROC errors", "[metrics]") {
  auto one_class = auroc<double>(std::vector<double>{0.1, 0.2}, std::vector<int64_t>{1, 1});
  REQUIRE_FALSE(one_class.ok());
  CHECK(one_class.error().kind == TrainErrorKind::Undefined);
  CHECK_FALSE(auroc<double>(std::vector<double>{0.1, NAN}, std::vector<int64_t>{0, 1}).ok());
  CHECK_FALSE(auroc<double>(std::vector<double>{0.1, 0.2}, std::vector<int64_t>{0, 2}).ok());
  CHECK_FALSE(auroc<double>(std::vector<double>{0.1}, std::vector<int64_t>{0, 1}).ok());
  CHECK_FALSE(auroc<double>(std::vector<double>{}, std::vector<int64_t>{}).ok());
}

TEST_CASE("accuracy", "[metrics]") {
  CHECK(accuracy(std::vector<int64_t>{1, 2, 3, 4}, std::vector<int64_t>{1, 2, 0, 4}).value() ==
        0.75);
  // Rows: argmax 2, argmax 0 (tie goes to the first), argmax 1.
  const std::vector<double> logits{0, 1, 5, 3, 3, 0, -1, 2, 1};
  CHECK(accuracy_from_logits<double>(logits, 3, std::vector<int64_t>{2, 0, 0}).value() ==
        Approx(2.0 / 3));
  CHECK_FALSE(accuracy_from_logits<double>(logits, 4, std::vector<int64_t>{2, 0, 0}).ok());
  CHECK(
      binary_accuracy<float>(std::vector<float>{-1, 2, 0.5f, -3}, std::vector<int64_t>{0, 1, 0, 1})
          .value() == 0.5);
  CHECK_FALSE(accuracy(std::vector<int64_t>{}, std::vector<int64_t>{}).ok());
}

TEST_CASE("cross-entropy is stable and matches the naive formula", "[metrics]") {
  const std::vector<double> logits{0.5, -1.0, 2.0, 0.1, 0.2, 0.3};
  const std::vector<int64_t> y{2, 0};
  double naive = 0;
  for (int r = 0; r < 2; ++r) {
    double z = 0;
    for (int c = 0; c < 3; ++c)
      z += std::exp(logits[r * 3 + c]);
    naive += -std::log(std::exp(logits[r * 3 + y[r]]) / z);
  }
  CHECK(cross_entropy<double>(logits, 3, y).value() == Approx(naive / 2).epsilon(1e-14));
  // exp(1000) overflows; log-sum-exp does not.
  const std::vector<float> big{1000.0f, 0.0f};
  CHECK(cross_entropy<float>(big, 2, std::vector<int64_t>{0}).value() == Approx(0.0).margin(1e-12));
  CHECK(cross_entropy<float>(big, 2, std::vector<int64_t>{1}).value() == Approx(1000.0));
  CHECK_FALSE(cross_entropy<double>(logits, 3, std::vector<int64_t>{2, 3}).ok());
}

TEST_CASE("BCE with logits and MSE", "[metrics]") {
  CHECK(bce_with_logits<double>(std::vector<double>{0.0}, std::vector<double>{1.0}).value() ==
        Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(bce_with_logits<double>(std::vector<double>{100.0, -100.0}, std::vector<double>{0.0, 1.0})
            .value() == Approx(100.0));
  const double x = 0.7, t = 0.3;
  const double naive =
      -(t * std::log(1 / (1 + std::exp(-x))) + (1 - t) * std::log(1 - 1 / (1 + std::exp(-x))));
  CHECK(bce_with_logits<double>(std::vector<double>{x}, std::vector<double>{t}).value() ==
        Approx(naive).epsilon(1e-14));
  CHECK_FALSE(bce_with_logits<double>(std::vector<double>{0.0}, std::vector<double>{2.0}).ok());
  CHECK(mse<float>(std::vector<float>{1, 2, 3}, std::vector<float>{1, 0, 5}).value() ==
        Approx(8.0 / 3));
  CHECK_FALSE(mse<float>(std::vector<float>{1}, std::vector<float>{}).ok());
}
