// Successive halving (Jamieson & Talwalkar 2016; the synchronous form of
// Li et al.'s ASHA, 2020): every trial trains for a few epochs, the best
// 1/eta go on for eta times as many, and so on up to the full budget, so
// most of the time goes to the settings that look best early.
//
//   epochs 30, eta 3, min 3:  rungs at 3, 10, 30 epochs
//   27 trials:                27 → 9 → 3 trained to the end
//
// A trial that continues resumes its own run (train --resume --until), and
// every rung's schedule spans the full --epochs, so a trial trained to the
// end equals a run trained at once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/support/metric_mode.h"

namespace plastic::driver {

/// The epochs at which trials are compared: eta-fold steps ending at
/// `epochs`, none below `min_epochs` (one rung when they are equal).
std::vector<int64_t> rung_epochs(int64_t epochs, int64_t min_epochs, int64_t eta);

/// The default smallest budget: `epochs` / eta², at least 1.
int64_t default_min_epochs(int64_t epochs, int64_t eta);

/// One trial's value at a rung; empty when the trial failed.
struct RungScore {
  int64_t trial = 0;
  std::optional<double> value;
};

/// The trials (by index) that go on from a rung of `scores`: the best
/// ceil(n / eta) by value (lower is better for rt::MetricMode::Min), ties by
/// trial index, failed trials never.
std::vector<int64_t> promoted(const std::vector<RungScore>& scores, int64_t eta,
                              rt::MetricMode mode);

/// Whether `a` is better than `b` under `mode` (a missing value is worst).
bool better(std::optional<double> a, std::optional<double> b, rt::MetricMode mode);

} // namespace plastic::driver
