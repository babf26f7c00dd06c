// The per-epoch training log: one JSON object per line (JSONL), appended and
// flushed after every epoch so `tail -f` and a crash both see every finished
// epoch, plus the end-of-run summary table.
//
// A line looks like
//   {"epoch":3,"train_loss":0.41,"valid_loss":0.47,"metric":"accuracy",
//    "valid_metric":0.86,"lr":0.001,"seconds":12.5,"evals_per_second":3080.2}
// Missing values (no validation set) are written as "nan" (json_util.h).
// On open, a last line cut short by a crash is terminated so the next record
// starts on its own line; reading skips such a line and says so.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/support/metric_mode.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

/// One epoch's numbers.
struct EpochRecord {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  int64_t epoch = 0;
  double train_loss = kNone;
  double valid_loss = kNone;
  double valid_metric = kNone;
  std::string metric_name = "metric"; ///< "accuracy", "auroc", ...
  double lr = kNone;
  double seconds = kNone;                          ///< wall time of the epoch
  double evals_per_second = kNone;                 ///< samples (forward+backward) per second
  nlohmann::json extra = nlohmann::json::object(); ///< anything else worth logging

  /// Keys in the order of the line above (ordered_json keeps insertion order).
  nlohmann::ordered_json to_json() const;
  static Result<EpochRecord, TrainError> from_json(const nlohmann::json& j);
};

/// An append-only JSONL file.
class JsonlLog {
public:
  /// Opens `path` for appending (truncate = true starts it afresh).
  static Result<JsonlLog, TrainError> open(const std::filesystem::path& path,
                                           bool truncate = false);
  JsonlLog(JsonlLog&& other) noexcept;
  JsonlLog& operator=(JsonlLog&& other) noexcept;
  JsonlLog(const JsonlLog&) = delete;
  JsonlLog& operator=(const JsonlLog&) = delete;
  ~JsonlLog();

  /// Writes one line and flushes it.
  Status<TrainError> append(const EpochRecord& record);
  /// Writes any JSON value as one line and flushes it (other logs: steps.jsonl).
  Status<TrainError> append_json(const nlohmann::ordered_json& value);
  const std::filesystem::path& path() const { return path_; }

private:
  JsonlLog(std::FILE* f, std::filesystem::path path) : f_(f), path_(std::move(path)) {}
  std::FILE* f_ = nullptr;
  std::filesystem::path path_;
};

/// The records of a log, in file order, and lines that could not be read.
struct LogContents {
  std::vector<EpochRecord> records;
  std::vector<std::string> skipped; ///< "line 7: ..." for malformed or truncated lines
};

/// Reads a JSONL log written by JsonlLog.
Result<LogContents, TrainError> read_jsonl_log(const std::filesystem::path& path);

/// The summary table of a run: one row per epoch (first and last few when
/// there are many), the best epoch marked with '*'. The best epoch is
/// `best_epoch` when given (the one early stopping kept), else the best
/// valid_metric under `mode`, else the lowest valid_loss, else the lowest
/// train_loss.
std::string format_summary(const std::vector<EpochRecord>& records,
                           MetricMode mode = MetricMode::Max, size_t max_rows = 24,
                           int64_t best_epoch = -1);

/// The table's two header lines, for a validation metric called `metric`.
std::string format_epoch_header(const std::string& metric);
/// One row of the table, marked '*' when `best`.
std::string format_epoch_row(const EpochRecord& r, bool best);
/// "best epoch 3: train loss ..., valid loss ...; 5 epochs in 2.1s", the
/// table's last line (empty when there is no best epoch).
std::string format_best_line(const std::vector<EpochRecord>& records, MetricMode mode,
                             int64_t best_epoch = -1);

/// Prints format_summary to `out` (stdout by default).
void print_summary(const std::vector<EpochRecord>& records, MetricMode mode = MetricMode::Max,
                   std::FILE* out = stdout, int64_t best_epoch = -1);

} // namespace plastic::rt
