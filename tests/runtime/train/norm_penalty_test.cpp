// The parameters' norm penalty λ Σ ‖θ_g‖: which tensors a name selects, the
// gradient against finite differences, and the training loop adding it to
// each batch's loss and gradient.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "runtime/support/rng.h"
#include "runtime/train/norm_penalty.h"
#include "runtime/train/train_loop.h"

using namespace plastic::rt;

namespace {

ParamTable layered_table() {
  ParamTable t;
  t.append("f.layers.0.weight", {3, 2});
  t.append("f.layers.0.bias", {3});
  t.append("out.weight", {1, 3});
  t.append("zeta", {2});
  return t;
}

double penalty_value(const NormPenalty& p, const std::vector<double>& theta) {
  double sum = 0;
  for (const ParamRange& g : p.groups) {
    double sq = 0;
    for (int64_t i = g.offset; i < g.offset + g.size; ++i)
      sq += theta[static_cast<size_t>(i)] * theta[static_cast<size_t>(i)];
    sum += std::sqrt(sq);
  }
  return p.weight * sum;
}

std::vector<double> random_theta(int64_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> theta(static_cast<size_t>(n));
  for (double& v : theta)
    v = rng.normal();
  return theta;
}

} // namespace

TEST_CASE("a norm penalty covers the tensors its names select", "[norm_penalty]") {
  const ParamTable t = layered_table();
  auto all = norm_penalty_over(t, 0.03, "");
  REQUIRE(all);
  CHECK(all.value().groups.size() == 4);
  auto f = norm_penalty_over(t, 0.03, "f");
  REQUIRE(f);
  REQUIRE(f.value().groups.size() == 2);
  CHECK(f.value().groups[0].offset == 0);
  CHECK(f.value().groups[0].size == 6);
  CHECK(f.value().groups[1].offset == 6);
  CHECK(f.value().groups[1].size == 3);
  auto two = norm_penalty_over(t, 0.03, "out.weight, zeta");
  REQUIRE(two);
  CHECK(two.value().groups.size() == 2);
  CHECK(norm_penalty_over(t, 0.03, "f.layers.0").value().groups.size() == 2);

  // A prefix is a whole component: "f.layers.0.w" is no tensor's name.
  auto typo = norm_penalty_over(t, 0.03, "f.layers.0.w");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().describe().find("names no parameter") != std::string::npos);
  CHECK(typo.error().advice == "name a parameter or a layer: f, out, zeta");
  CHECK_FALSE(norm_penalty_over(t, -0.1, ""));
  CHECK_FALSE(norm_penalty_over(t, std::nan(""), ""));
  CHECK_FALSE(norm_penalty_over(t, 0.0, "").value().active());
}

TEST_CASE("a norm penalty's gradient is lambda theta_g over its norm", "[norm_penalty]") {
  const ParamTable t = layered_table();
  const NormPenalty p = norm_penalty_over(t, 0.03, "f,zeta").value();
  std::vector<double> theta = random_theta(t.total(), 7);
  theta[6] = theta[7] = theta[8] = 0; // the bias at zero: no norm, no gradient (torch)
  std::vector<double> grads(theta.size(), 0.0);
  const double added = add_norm_penalty<double>(p, theta, grads);
  CHECK(added == Approx(penalty_value(p, theta)).epsilon(1e-14));

  const double h = 1e-6;
  for (size_t i = 0; i < theta.size(); ++i) {
    if (i >= 6 && i < 9) {
      CHECK(grads[i] == 0);
      continue;
    }
    std::vector<double> up = theta, down = theta;
    up[i] += h;
    down[i] -= h;
    const double fd = (penalty_value(p, up) - penalty_value(p, down)) / (2 * h);
    CHECK(grads[i] == Approx(fd).epsilon(1e-7).margin(1e-12));
  }
  CHECK(grads[9] == 0); // out.weight is not covered
  CHECK(grads[10] == 0);
}

TEST_CASE("the training loop adds the norm penalty to each batch", "[norm_penalty][loop]") {
  ParamTable t;
  t.append("w", {3});
  t.append("b", {2});
  const std::vector<double> start = {3, 0, 4, 0, -2};
  std::vector<double> theta = start;
  // No data term: the step and the loss are the penalty's alone.
  TrainHooks<double> hooks;
  hooks.batches_per_epoch = 1;
  hooks.train_batch = [](int64_t, int64_t, std::span<const double>, std::span<double>,
                         Rng&) -> plastic::Result<BatchResult, TrainError> {
    return BatchResult{0.0, 4};
  };
  TrainConfig c;
  c.epochs = 1;
  c.optimizer.kind = "sgd";
  c.optimizer.lr = 0.5;
  c.monitor = Monitor::TrainLoss;
  c.restore_best = false;
  c.progress = false;
  c.print_summary = false;
  c.norm_penalty = norm_penalty_over(t, 0.1, "").value();
  auto out = train<double>(t, std::span<double>(theta), hooks, c);
  REQUIRE(out);
  // ‖w‖ = 5, ‖b‖ = 2: loss 0.1 (5 + 2); θ_g -= 0.5 · 0.1 · θ_g / ‖θ_g‖.
  REQUIRE(out.value().history.size() == 1);
  CHECK(out.value().history[0].train_loss == Approx(0.7).epsilon(1e-15));
  CHECK(theta[0] == Approx(3 - 0.05 * 3.0 / 5).epsilon(1e-15));
  CHECK(theta[2] == Approx(4 - 0.05 * 4.0 / 5).epsilon(1e-15));
  CHECK(theta[4] == Approx(-2 + 0.05).epsilon(1e-15));
  CHECK(theta[1] == 0);
}
