// The step log (see step_log.h).
#include "runtime/train/step_log.h"

#include <cmath>
#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/io/atomic_file.h"

namespace plastic::rt {

namespace {

// Whether a logged line belongs to a batch before (epoch, next_batch).
bool before(const nlohmann::json& line, int64_t epoch, int64_t next_batch) {
  const int64_t e = line.value("epoch", int64_t{0});
  const int64_t b = line.value("batch", int64_t{0});
  return e < epoch || (e == epoch && b < next_batch);
}

// Keeps the lines of the batches before (epoch, next_batch); unreadable
// lines (a crash mid-line) are dropped.
Status<TrainError> keep_before(const std::filesystem::path& path, int64_t epoch,
                               int64_t next_batch) {
  std::ifstream in(path);
  if (!in) return {}; // nothing logged yet
  std::string text;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && before(j, epoch, next_batch)) text += line + "\n";
  }
  return write_file_atomic(path, text);
}

} // namespace

Result<StepLog, TrainError> StepLog::open(const std::filesystem::path& run_dir, bool resumed,
                                          int64_t epoch, int64_t next_batch) {
  const std::filesystem::path path = run_dir / "steps.jsonl";
  if (resumed)
    if (Status<TrainError> s = keep_before(path, epoch, next_batch); !s) return s.error();
  auto log = JsonlLog::open(path, /*truncate=*/!resumed);
  if (!log) return log.error();
  return StepLog(std::move(log).value());
}

Status<TrainError> StepLog::append(const StepRecord& r) {
  auto number = [](double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json j;
  j["epoch"] = r.epoch;
  j["batch"] = r.batch;
  j["loss"] = number(r.loss);
  j["lr"] = r.lr;
  j["grad_norm"] = number(r.grad_norm);
  j["taken"] = r.taken;
  j["samples"] = r.samples;
  return log_.append_json(j);
}

} // namespace plastic::rt
