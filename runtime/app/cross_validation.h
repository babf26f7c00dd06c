// K-fold cross-validation, `train --folds K`: K models, each trained with one
// fold of the training data held out for validation, each in a run folder of
// its own (OUT/fold-1 … OUT/fold-K: complete runs that `eval`, `predict` and
// `--resume` take like any other), and the mean ± std of their validation
// and test values in OUT/folds.json and a table.
//
// For small data sets, where one 15 % validation part of a 30-sample
// training set is 4 samples and says little: every training sample is
// validated on exactly once, the test part is the same for every fold, and
// the spread over the folds says how far a number can be trusted. The folds
// share the split seed (they partition the same samples) and the
// initialisation seed (they differ only in their data). Interrupted, the
// whole cross-validation continues with `--resume`: finished folds are
// re-evaluated from their checkpoints, the interrupted one continues.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/abi.h"
#include "runtime/app/requests.h"

namespace plastic::rt {

/// The run folder of fold `fold` (1-based) of a cross-validation in `out`.
std::filesystem::path fold_folder(const std::filesystem::path& out, int64_t fold);

/// The K of the cross-validation in `out` (its folds.json), if it holds one.
std::optional<int64_t> recorded_folds(const std::filesystem::path& out);

/// Trains every fold of `request` (run.folds >= 2, run.fold == 0) in turn
/// (run_train with run.fold set), then writes and prints the summary. Returns the exit code (that
/// of the first fold that failed or was interrupted).
int run_cross_validation(const plastic_model& model, const TrainRequest& request);

/// The mean and sample standard deviation of every number in the folds'
/// summary.json objects (`fold_summaries[k]` of fold k + 1), by split and
/// value: {"validation": {"loss": {"mean", "std"}, "accuracy": …}, "test": …}.
nlohmann::ordered_json fold_statistics(const std::vector<nlohmann::json>& fold_summaries);

} // namespace plastic::rt
