// Learning-rate schedules, gradient clipping and early stopping.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "runtime/train/clip.h"
#include "runtime/train/early_stopping.h"
#include "runtime/train/lr_schedule.h"
#include "runtime/train/plateau.h"

using namespace plastic::rt;

TEST_CASE("ReduceLROnPlateau: torch's behaviour on a scripted run", "[schedule]") {
  PlateauOptions o;
  o.base_lr = 1.0;
  o.patience = 2;
  o.cooldown = 1;
  // Walked through torch's step(): "bad" counts epochs without a relative
  // improvement of 1e-4; the rate drops when bad exceeds the patience; one
  // cooldown epoch then ignores bad epochs.
  struct Row {
    double loss, lr;
    int bad;
  };
  const Row script[] = {
      {10.0, 1.0, 0},    // better (best 10)
      {9.0, 1.0, 0},     // better (best 9)
      {9.0, 1.0, 1},     // equal is not better
      {9.5, 1.0, 2},     //
      {9.0, 0.1, 0},     // bad 3 > patience 2: drop, cooldown 1
      {9.2, 0.1, 0},     // bad, but in cooldown: counter reset
      {9.3, 0.1, 1},     //
      {9.3, 0.1, 2},     //
      {9.3, 0.01, 0},    // drop again
      {8.0, 0.01, 0},    // better (best 8), cooldown ends
      {7.9995, 0.01, 1}, // not better: 7.9995 >= 8 * (1 - 1e-4) = 7.9992
      {7.99, 0.01, 0},   // better than 7.9992
      {8.0, 0.01, 1},    //
      {8.0, 0.01, 2},    //
      {8.0, 0.001, 0},   // drop
  };
  ReduceLrOnPlateau s(o);
  int epoch = 0;
  for (const Row& r : script) {
    ++epoch;
    s.step(r.loss);
    INFO("epoch " << epoch << " loss " << r.loss);
    CHECK(s.lr() == Approx(r.lr).epsilon(1e-12));
    CHECK(s.bad_epochs() == r.bad);
  }
  CHECK(s.best() == 7.99);
}

TEST_CASE("ReduceLROnPlateau: paper 002's set-up drops on the 16th flat epoch", "[schedule]") {
  ReduceLrOnPlateau s(PlateauOptions::neural_rde(0.032 / 1024));
  s.step(1.0);
  for (int i = 1; i <= 15; ++i) {
    s.step(1.0);
    CHECK_FALSE(s.reduced_last_step());
  }
  s.step(1.0);
  CHECK(s.reduced_last_step());
  CHECK(s.lr() == Approx(0.032 / 1024 * 0.1));
}

TEST_CASE("ReduceLROnPlateau: min_lr, eps, max mode, NaN", "[schedule]") {
  PlateauOptions o;
  o.base_lr = 0.1;
  o.patience = 0;
  o.min_lr = 0.05;
  ReduceLrOnPlateau s(o);
  s.step(1.0);
  s.step(1.0); // bad 1 > 0: max(0.01, 0.05)
  CHECK(s.lr() == 0.05);
  CHECK(s.reduced_last_step());
  s.step(1.0); // would go below min_lr: no change (torch: old - new <= eps)
  CHECK(s.lr() == 0.05);
  CHECK_FALSE(s.reduced_last_step());

  PlateauOptions m;
  m.mode = MetricMode::Max;
  m.threshold_mode = ThresholdMode::Abs;
  m.threshold = 0.01;
  m.patience = 1;
  ReduceLrOnPlateau acc(m);
  acc.step(0.80);
  acc.step(0.805); // not better by more than 0.01
  CHECK(acc.bad_epochs() == 1);
  acc.step(std::numeric_limits<double>::quiet_NaN()); // NaN is never better
  CHECK(acc.reduced_last_step());
  CHECK(acc.best() == 0.80);
}

TEST_CASE("ReduceLROnPlateau state round trip", "[schedule]") {
  ReduceLrOnPlateau a(PlateauOptions{.base_lr = 1.0, .patience = 1, .cooldown = 2});
  ReduceLrOnPlateau fresh(PlateauOptions{.base_lr = 1.0, .patience = 1, .cooldown = 2});
  REQUIRE(fresh.load_state(fresh.state()).ok()); // best = +inf survives JSON
  CHECK(std::isinf(fresh.best()));
  for (double x : {3.0, 2.0, 2.0, 2.0})
    a.step(x);
  ReduceLrOnPlateau b(PlateauOptions{.base_lr = 1.0, .patience = 1, .cooldown = 2});
  REQUIRE(b.load_state(nlohmann::json::parse(a.state().dump())).ok());
  for (double x : {2.5, 2.5, 2.5, 2.5, 1.0}) {
    a.step(x);
    b.step(x);
    CHECK(a.lr() == b.lr());
    CHECK(a.bad_epochs() == b.bad_epochs());
    CHECK(a.cooldown_counter() == b.cooldown_counter());
  }
  CHECK_FALSE(b.load_state({{"lr", 1}}).ok());
}

TEST_CASE("cosine annealing at known points", "[schedule]") {
  CosineLr c(CosineOptions{.base_lr = 1.0, .min_lr = 0.1, .total_steps = 100});
  CHECK(c.at(0) == 1.0);
  CHECK(c.at(50) == Approx(0.55).epsilon(1e-15));
  CHECK(c.at(25) == Approx(0.1 + 0.9 * (1 + std::cos(std::numbers::pi / 4)) / 2).epsilon(1e-15));
  CHECK(c.at(100) == Approx(0.1));
  CHECK(c.at(1000) == 0.1); // stays at min_lr past the end
  for (int k = 0; k < 10; ++k)
    c.step();
  CHECK(c.lr() == c.at(10));

  CosineLr w(CosineOptions{.base_lr = 2.0,
                           .min_lr = 0.0,
                           .total_steps = 110,
                           .warmup_steps = 10,
                           .warmup_start_factor = 0.1});
  CHECK(w.at(0) == Approx(0.2));
  CHECK(w.at(5) == Approx(2.0 * (0.1 + 0.9 * 0.5)));
  CHECK(w.at(10) == Approx(2.0));
  CHECK(w.at(60) == Approx(1.0));
  CHECK(w.at(110) == Approx(0.0).margin(1e-15));
  CHECK_FALSE(CosineOptions{.total_steps = 10, .warmup_steps = 11}.check().ok());
}

TEST_CASE("schedule factory", "[schedule]") {
  auto p = make_schedule({{"kind", "plateau"}, {"factor", 0.1}, {"patience", 15}}, 0.01);
  REQUIRE(p.ok());
  CHECK(std::string(p.value()->kind()) == "plateau");
  CHECK(p.value()->lr() == 0.01);
  auto c = make_schedule({{"kind", "cosine"}, {"total_steps", 20}}, 0.5);
  REQUIRE(c.ok());
  CHECK(c.value()->lr() == 0.5);
  CHECK(make_schedule(nullptr, 0.3).value()->lr() == 0.3);
  CHECK_FALSE(make_schedule({{"kind", "step"}}, 0.1).ok());
  CHECK_FALSE(make_schedule({{"kind", "plateau"}, {"mode", "up"}}, 0.1).ok());
  CHECK_FALSE(make_schedule({{"kind", "plateau"}, {"factor", 1.5}}, 0.1).ok());
  CHECK_FALSE(make_schedule({{"kind", "cosine"}, {"total_steps", "many"}}, 0.1).ok());
}

TEST_CASE("clip_grad_norm follows torch.nn.utils.clip_grad_norm_", "[clip]") {
  std::vector<double> g{3.0, 4.0};
  const double norm = clip_grad_norm<double>(g, 1.0);
  CHECK(norm == 5.0);
  const double coef = 1.0 / (5.0 + 1e-6);
  CHECK(g[0] == Approx(3.0 * coef).epsilon(1e-15));
  CHECK(g[1] == Approx(4.0 * coef).epsilon(1e-15));

  std::vector<float> small{0.3f, -0.4f};
  CHECK(clip_grad_norm<float>(small, 1.0) == Approx(0.5).epsilon(1e-7));
  CHECK(small == std::vector<float>{0.3f, -0.4f}); // below max_norm: untouched

  std::vector<double> inf_norm{1.0, -7.0, 2.0};
  CHECK(clip_grad_norm<double>(inf_norm, 3.5, std::numeric_limits<double>::infinity()) == 7.0);
  CHECK(inf_norm[1] == Approx(-7.0 * 3.5 / (7.0 + 1e-6)));

  std::vector<double> one{3.0, -4.0};
  CHECK(grad_norm<double>(one, 1.0) == Approx(7.0));

  std::vector<double> huge{3e200, 4e200}; // squares overflow; the norm does not
  CHECK(grad_norm<double>(huge) == Approx(5e200));

  std::vector<double> bad{1.0, std::nan("")};
  CHECK(std::isnan(clip_grad_norm<double>(bad, 1.0)));
  CHECK(bad[0] == 1.0); // left for the caller to skip the step
}

TEST_CASE("clip_grad_value clamps", "[clip]") {
  std::vector<float> g{-3.0f, 0.5f, 2.0f, std::nanf("")};
  clip_grad_value<float>(g, 1.0);
  CHECK(g[0] == -1.0f);
  CHECK(g[1] == 0.5f);
  CHECK(g[2] == 1.0f);
  CHECK(std::isnan(g[3]));
}

TEST_CASE("early stopping remembers and restores the best parameters", "[early]") {
  EarlyStopping<double> es(EarlyStoppingOptions{.mode = MetricMode::Min, .patience = 3});
  std::vector<double> theta{0.0};
  const double losses[] = {5.0, 4.0, 4.5, 3.0, 3.5, 3.2, 3.0, 3.1, 2.0};
  bool stopped = false;
  int64_t epoch = 0;
  for (double l : losses) {
    theta[0] = static_cast<double>(++epoch); // parameters change every epoch
    es.update(epoch, l, theta);
    if (es.should_stop()) {
      stopped = true;
      break;
    }
  }
  CHECK(stopped);
  CHECK(epoch == 8); // epochs 5..8 do not beat 3.0 (equal is not better): 4 > patience 3
  CHECK(es.best_epoch() == 4);
  CHECK(es.best_metric() == 3.0);
  REQUIRE(es.restore_best(theta).ok());
  CHECK(theta[0] == 4.0);

  EarlyStopping<double> copy;
  REQUIRE(copy.load_state(nlohmann::json::parse(es.state().dump()), es.best_params()).ok());
  CHECK(copy.best_epoch() == 4);
  CHECK(copy.bad_epochs() == 4);
  CHECK(copy.best_params() == std::vector<double>{4.0});

  EarlyStopping<float> none(EarlyStoppingOptions{.mode = MetricMode::Max, .patience = 2});
  std::vector<float> p{1.0f};
  none.update(1, std::nan(""), p);
  CHECK_FALSE(none.has_best());
  CHECK_FALSE(none.restore_best(p).ok());
  none.update(2, 0.5, p);
  CHECK(none.has_best());
}

TEST_CASE("a tie on the selected metric goes to the lower tie-break value", "[early]") {
  // Validation accuracy (max) with the validation loss breaking ties.
  EarlyStopping<double> es(EarlyStoppingOptions{.mode = MetricMode::Max, .patience = 2});
  std::vector<double> theta{0.0};
  struct Epoch {
    double accuracy, loss;
  };
  const Epoch epochs[] = {{0.5, 1.0}, {0.75, 0.9}, {0.75, 0.7}, {0.75, 0.8}, {0.5, 0.1}};
  int64_t epoch = 0;
  for (const Epoch& e : epochs) {
    theta[0] = static_cast<double>(++epoch);
    es.update(epoch, e.accuracy, theta, e.loss);
  }
  CHECK(es.best_epoch() == 3); // 0.75 at epochs 2-4; epoch 3 has the lowest loss
  CHECK(es.bad_epochs() == 2); // a won tie resets the count, a lost one does not
  REQUIRE(es.restore_best(theta).ok());
  CHECK(theta[0] == 3.0);

  // The tie-break survives a checkpoint: a later tie must beat loss 0.7.
  EarlyStopping<double> resumed(EarlyStoppingOptions{.mode = MetricMode::Max, .patience = 2});
  REQUIRE(resumed.load_state(nlohmann::json::parse(es.state().dump()), es.best_params()).ok());
  CHECK_FALSE(resumed.update(6, 0.75, theta, 0.75));
  CHECK(resumed.update(7, 0.75, theta, 0.6));

  // Without a tie-break value (NaN) a tie is not an improvement.
  EarlyStopping<double> plain(EarlyStoppingOptions{.mode = MetricMode::Max, .patience = 2});
  plain.update(1, 0.75, theta);
  CHECK_FALSE(plain.update(2, 0.75, theta));
}
