// The record of a search, in its folder:
//
//   tune.json    the plan: model, the arguments every trial gets, the space,
//                every trial's point, the rungs, how trials are validated;
//                written before the first trial, so `--resume` repeats no flag
//   tune.jsonl   one line per trial and rung as it ends: its values, the
//                value compared, ok or failed (and why)
//   trial-K/     trial K's run folder (or fold-1 … fold-F under it)
//   best/        the best trial's run, an ordinary run folder
//
// The plan is fixed when the search starts: every point is drawn up front
// from the seed, and which trials go on is a function of the values in
// tune.jsonl, so a resumed search takes the decisions an uninterrupted one
// would have taken.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/driver/tune/search_space.h"
#include "compiler/driver/tune/trial_value.h"
#include "runtime/app/app_error.h"

namespace plastic::driver {

struct TunePlan {
  std::string model_file;             ///< absolute
  std::string model_digest;           ///< of its text: a resumed search refuses an edited model
  std::vector<std::string> arguments; ///< what every trial's `train` gets (--data, --set, …)
  SearchSpace space;
  std::string search = "random"; ///< random | grid
  uint64_t seed = 0;
  std::vector<TrialPoint> points; ///< trial k's values
  int64_t epochs = 30;
  int64_t eta = 3;
  std::vector<int64_t> rungs; ///< epochs at which trials are compared
  int64_t folds = 0;          ///< k-fold cross-validation per trial; 0 = the validation split
  std::string selection_note; ///< why folds or a split, as printed
  Selection by;
  int threads = 1; ///< per trial
};

/// One line of tune.jsonl: trial `trial` at rung `rung`.
struct TrialRow {
  int64_t trial = 0;
  int64_t rung = 0;
  std::optional<double> value; ///< empty: the trial failed
  std::string error;
  double seconds = 0;
};

/// The folder of trial `k` (trial-007).
std::filesystem::path trial_folder(const std::filesystem::path& out, int64_t k);

Status<rt::AppError> write_plan(const std::filesystem::path& out, const TunePlan& plan,
                                const nlohmann::json& best = nullptr);
/// The plan of the search in `out`; an error when there is none or it is unreadable.
Result<TunePlan, rt::AppError> read_plan(const std::filesystem::path& out);

/// Appends `row` to out/tune.jsonl (flushed: a killed search keeps it).
Status<rt::AppError> append_row(const std::filesystem::path& out, const TunePlan& plan,
                                const TrialRow& row);
/// The rows of out/tune.jsonl by (trial, rung); a truncated last line is skipped.
std::map<std::pair<int64_t, int64_t>, TrialRow> read_rows(const std::filesystem::path& out,
                                                          const Selection& by);

} // namespace plastic::driver
