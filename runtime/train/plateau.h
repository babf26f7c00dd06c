// ReduceLROnPlateau with torch.optim.lr_scheduler.ReduceLROnPlateau's exact
// semantics.
//
// Per step(metric):
//   better  = metric beats best by the threshold (rel: metric < best*(1-thr)
//             for min, metric > best*(1+thr) for max; abs: best -/+ thr)
//   better ? (best = metric, bad = 0) : ++bad
//   in cooldown: --cooldown_counter, bad = 0
//   bad > patience: lr = max(lr*factor, min_lr) if that lowers lr by more
//                   than eps; cooldown_counter = cooldown; bad = 0
// So with patience p the rate drops on the (p+1)-th epoch without
// improvement. A NaN metric never counts as better. Paper 002 (App. C): the
// neural RDE runs divide the rate by 10 after 15 epochs without a decrease of
// the validation loss — PlateauOptions::neural_rde().
#pragma once

#include "runtime/support/metric_mode.h"
#include "runtime/train/lr_schedule.h"

namespace plastic::rt {

/// How the improvement threshold is measured.
enum class ThresholdMode { Rel, Abs };

/// torch's ReduceLROnPlateau arguments (same defaults).
struct PlateauOptions {
  double base_lr = 1e-3; ///< the optimiser's initial lr
  MetricMode mode = MetricMode::Min;
  double factor = 0.1;
  int patience = 10;
  double threshold = 1e-4;
  ThresholdMode threshold_mode = ThresholdMode::Rel;
  int cooldown = 0;
  double min_lr = 0;
  double eps = 1e-8;

  /// Paper 002 App. C: factor 0.1 after 15 epochs without improvement of the validation loss.
  static PlateauOptions neural_rde(double base_lr);
  /// torch's checks: 0 <= factor < 1, patience, cooldown >= 0, min_lr >= 0.
  Status<TrainError> check() const;
};

class ReduceLrOnPlateau final : public LrSchedule {
public:
  explicit ReduceLrOnPlateau(PlateauOptions options);
  const char* kind() const override { return "plateau"; }
  double lr() const override { return lr_; }
  /// One epoch's monitored value.
  void step(double metric) override;
  nlohmann::json state() const override;
  Status<TrainError> load_state(const nlohmann::json& state) override;

  /// Whether the last step() lowered the rate.
  bool reduced_last_step() const { return reduced_; }
  double best() const { return best_; }
  int bad_epochs() const { return bad_; }
  int cooldown_counter() const { return cooldown_counter_; }
  /// The comparison torch calls is_better (public for tests and early stopping).
  bool is_better(double metric, double best) const;

private:
  PlateauOptions o_;
  double lr_;
  double best_;
  int bad_ = 0;
  int cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  bool reduced_ = false;
};

} // namespace plastic::rt
