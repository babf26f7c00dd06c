// ReduceLROnPlateau (semantics in plateau.h).
#include "runtime/train/plateau.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "runtime/support/json_util.h"

namespace plastic::rt {

PlateauOptions PlateauOptions::neural_rde(double base_lr) {
  PlateauOptions o;
  o.base_lr = base_lr;
  o.mode = MetricMode::Min;
  o.factor = 0.1;
  o.patience = 15;
  return o;
}

Status<TrainError> PlateauOptions::check() const {
  if (!(factor >= 0 && factor < 1))
    return invalid_argument_error(
        fmt::format("plateau schedule: factor {} must be in [0, 1)", factor));
  if (patience < 0 || cooldown < 0)
    return invalid_argument_error(fmt::format(
        "plateau schedule: patience {} and cooldown {} must be >= 0", patience, cooldown));
  if (!(min_lr >= 0) || !(base_lr >= 0) || !(eps >= 0) || !(threshold >= 0))
    return invalid_argument_error(
        "plateau schedule: base_lr, min_lr, eps and threshold must be >= 0");
  return {};
}

ReduceLrOnPlateau::ReduceLrOnPlateau(PlateauOptions options)
    : o_(options), lr_(options.base_lr),
      best_(options.mode == MetricMode::Min ? std::numeric_limits<double>::infinity()
                                            : -std::numeric_limits<double>::infinity()) {}

bool ReduceLrOnPlateau::is_better(double a, double best) const {
  // torch's _cmp; comparisons with NaN are false, so a NaN metric is never better.
  if (o_.mode == MetricMode::Min)
    return o_.threshold_mode == ThresholdMode::Rel ? a < best * (1.0 - o_.threshold)
                                                   : a < best - o_.threshold;
  return o_.threshold_mode == ThresholdMode::Rel ? a > best * (o_.threshold + 1.0)
                                                 : a > best + o_.threshold;
}

void ReduceLrOnPlateau::step(double metric) {
  ++last_epoch_;
  reduced_ = false;
  if (is_better(metric, best_)) {
    best_ = metric;
    bad_ = 0;
  } else {
    ++bad_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    bad_ = 0; // bad epochs during cooldown do not count
  }
  if (bad_ > o_.patience) {
    const double new_lr = std::max(lr_ * o_.factor, o_.min_lr);
    if (lr_ - new_lr > o_.eps) {
      lr_ = new_lr;
      reduced_ = true;
    }
    cooldown_counter_ = o_.cooldown;
    bad_ = 0;
  }
}

nlohmann::json ReduceLrOnPlateau::state() const {
  return {{"kind", kind()},
          {"lr", json_double(lr_)},
          {"best", json_double(best_)},
          {"num_bad_epochs", bad_},
          {"cooldown_counter", cooldown_counter_},
          {"last_epoch", last_epoch_}};
}

Status<TrainError> ReduceLrOnPlateau::load_state(const nlohmann::json& j) {
  const auto lr = read_json_double(j, "lr");
  const auto best = read_json_double(j, "best");
  if (!lr || !best || !j.contains("num_bad_epochs") ||
      !j.at("num_bad_epochs").is_number_integer() || !j.contains("cooldown_counter") ||
      !j.at("cooldown_counter").is_number_integer() || !j.contains("last_epoch") ||
      !j.at("last_epoch").is_number_integer())
    return invalid_argument_error("malformed plateau schedule state");
  const int bad = j.at("num_bad_epochs").get<int>();
  const int cool = j.at("cooldown_counter").get<int>();
  if (bad < 0 || cool < 0)
    return invalid_argument_error("malformed plateau schedule state: negative counters");
  lr_ = *lr;
  best_ = *best;
  bad_ = bad;
  cooldown_counter_ = cool;
  last_epoch_ = j.at("last_epoch").get<int64_t>();
  return {};
}

} // namespace plastic::rt
