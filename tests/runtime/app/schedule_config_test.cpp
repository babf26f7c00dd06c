// The schedule `plastic train --schedule` hands to the training loop.
//
// Regression: the cosine schedule was configured with total_steps = epochs x
// batches per epoch, but the loop steps schedules once per epoch, so a
// "cosine" run kept ~99% of its learning rate to the end (e.g. 40 epochs of
// 27 batches: lr 0.002994 of 0.003 at epoch 31).
#include <catch2/catch.hpp>

#include "runtime/app/train_app.h"
#include "runtime/train/lr_schedule.h"

using namespace plastic::rt;

TEST_CASE("cosine schedule spans the run's epochs", "[app][schedule]") {
  const int64_t epochs = 40;
  const double base = 3e-3;
  nlohmann::json cfg = schedule_config("cosine", epochs);
  REQUIRE(cfg.at("kind") == "cosine");
  CHECK(cfg.at("total_steps").get<int64_t>() == epochs);

  auto made = make_schedule(cfg, base);
  REQUIRE(made);
  LrSchedule& s = *made.value();
  CHECK(s.lr() == Approx(base));
  // The loop calls step() once at the end of every epoch.
  for (int64_t e = 0; e < epochs / 2; ++e)
    s.step(1.0);
  CHECK(s.lr() == Approx(base / 2).epsilon(1e-9));
  for (int64_t e = epochs / 2; e < epochs - 1; ++e)
    s.step(1.0);
  CHECK(s.lr() < 0.01 * base); // the last epoch runs near the minimum
}

TEST_CASE("constant and plateau schedules", "[app][schedule]") {
  CHECK(schedule_config("constant", 10).at("kind") == "constant");
  nlohmann::json p = schedule_config("plateau", 10);
  CHECK(p.at("kind") == "plateau");
  CHECK(p.at("patience").get<int>() == 15);
  CHECK(schedule_config("cosine", 0).at("total_steps").get<int64_t>() == 1);
}
