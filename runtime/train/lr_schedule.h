// Learning-rate schedules: constant, cosine annealing with optional linear
// warm-up, and (plateau.h) ReduceLROnPlateau.
//
// A schedule owns the current learning rate; the training loop calls step()
// at the schedule's granularity (once per epoch for the papers' set-ups) and
// copies lr() into the optimiser. Every schedule's state is JSON, so a
// checkpoint resumes it exactly.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>

#include <nlohmann/json.hpp>

#include "runtime/support/train_error.h"

namespace plastic::rt {

/// A learning-rate schedule.
class LrSchedule {
public:
  virtual ~LrSchedule() = default;
  /// "constant", "cosine", "plateau".
  virtual const char* kind() const = 0;
  /// The learning rate to use now.
  virtual double lr() const = 0;
  /// Advances one scheduler step. `metric` is the monitored value (e.g. the
  /// validation loss); time-based schedules ignore it.
  virtual void step(double metric = std::numeric_limits<double>::quiet_NaN()) = 0;
  /// Everything needed to resume (counters, best value, current lr).
  virtual nlohmann::json state() const = 0;
  /// Restores state() output; fails, changing nothing, on malformed input.
  virtual Status<TrainError> load_state(const nlohmann::json& state) = 0;
};

/// The same learning rate forever.
class ConstantLr final : public LrSchedule {
public:
  explicit ConstantLr(double lr) : lr_(lr) {}
  const char* kind() const override { return "constant"; }
  double lr() const override { return lr_; }
  void step(double = std::numeric_limits<double>::quiet_NaN()) override { ++steps_; }
  nlohmann::json state() const override;
  Status<TrainError> load_state(const nlohmann::json& state) override;

private:
  double lr_;
  int64_t steps_ = 0;
};

/// Cosine annealing (torch.optim.lr_scheduler.CosineAnnealingLR's closed
/// form) after an optional linear warm-up (torch's LinearLR):
///   k <  W:  lr = base * (s + (1 - s) * k / W)
///   k >= W:  lr = min + (base - min) * (1 + cos(pi * (k - W) / (T - W))) / 2
/// with k = steps taken, W = warmup_steps, s = warmup_start_factor,
/// T = total_steps. Past T the rate stays at min_lr (torch's closed form
/// would rise again; a run longer than its schedule should not).
struct CosineOptions {
  double base_lr = 1e-3;
  double min_lr = 0;                      ///< torch's eta_min
  int64_t total_steps = 100;              ///< T, warm-up included (torch's T_max + W)
  int64_t warmup_steps = 0;               ///< W
  double warmup_start_factor = 1.0 / 3.0; ///< torch LinearLR's default start_factor

  Status<TrainError> check() const;
};

class CosineLr final : public LrSchedule {
public:
  explicit CosineLr(CosineOptions options) : o_(options) {}
  const char* kind() const override { return "cosine"; }
  double lr() const override { return at(steps_); }
  void step(double = std::numeric_limits<double>::quiet_NaN()) override { ++steps_; }
  nlohmann::json state() const override;
  Status<TrainError> load_state(const nlohmann::json& state) override;
  /// The rate after k steps.
  double at(int64_t k) const;
  int64_t steps() const { return steps_; }

private:
  CosineOptions o_;
  int64_t steps_ = 0;
};

/// Makes a schedule from a run's configuration: {"kind": "constant"},
/// {"kind": "cosine", "total_steps": 100, "warmup_steps": 5, "min_lr": 0},
/// {"kind": "plateau", "factor": 0.1, "patience": 15, "mode": "min", ...}.
/// The base learning rate is the optimiser's.
Result<std::unique_ptr<LrSchedule>, TrainError> make_schedule(const nlohmann::json& config,
                                                              double base_lr);

} // namespace plastic::rt
