// What a trial's run folder says about it: the best validation value it
// reached by a given epoch (the number successive halving compares), and
// whether the run has ended.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/support/metric_mode.h"

namespace plastic::driver {

/// Which value a search compares, from train's --select: the validation
/// loss (lower is better) or the task's metric (accuracy and AUROC higher,
/// MSE lower).
struct Selection {
  std::string select = "loss";
  rt::MetricMode mode = rt::MetricMode::Min;
  /// "valid loss", "valid accuracy": the table's heading.
  std::string heading() const { return "valid " + select; }
};
Selection selection_for(const std::string& select);

/// The best value of `by` in `run`'s train.jsonl over epochs 1..upto (the
/// training loss when the run has no validation); empty when no epoch up to
/// then has a finite one.
std::optional<double> best_value(const std::filesystem::path& run, const Selection& by,
                                 int64_t upto);

/// Whether `run` has ended (train wrote summary.json: every epoch, or
/// stopped early by --patience) rather than paused or interrupted.
bool run_ended(const std::filesystem::path& run);

/// The last line of `log` that says what went wrong ("plastic: …"), else its
/// last non-empty line: why a trial failed, for the table.
std::string failure_reason(const std::filesystem::path& log);

} // namespace plastic::driver
