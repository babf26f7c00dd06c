// JSONL epoch log and the summary table.
#include "runtime/io/epoch_log.h"

#include <cerrno>
#include <cmath>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "runtime/io/write_faults.h"

#include "runtime/support/json_util.h"

namespace plastic::rt {

nlohmann::ordered_json EpochRecord::to_json() const {
  // Ordered so the lines read naturally in a terminal.
  nlohmann::ordered_json j;
  j["epoch"] = epoch;
  j["train_loss"] = json_double(train_loss);
  j["valid_loss"] = json_double(valid_loss);
  j["metric"] = metric_name;
  j["valid_metric"] = json_double(valid_metric);
  j["lr"] = json_double(lr);
  j["seconds"] = json_double(seconds);
  j["evals_per_second"] = json_double(evals_per_second);
  if (!extra.empty()) j["extra"] = extra;
  return j;
}

Result<EpochRecord, TrainError> EpochRecord::from_json(const nlohmann::json& j) {
  EpochRecord r;
  if (!j.is_object() || !j.contains("epoch") || !j["epoch"].is_number_integer())
    return invalid_argument_error("a log record needs an integer 'epoch'");
  r.epoch = j["epoch"].get<int64_t>();
  const std::pair<const char*, double*> fields[] = {
      {"train_loss", &r.train_loss},     {"valid_loss", &r.valid_loss},
      {"valid_metric", &r.valid_metric}, {"lr", &r.lr},
      {"seconds", &r.seconds},           {"evals_per_second", &r.evals_per_second}};
  for (const auto& [key, out] : fields) {
    if (!j.contains(key)) continue;
    const auto v = read_json_double(j[key]);
    if (!v) return invalid_argument_error(fmt::format("log field '{}' is not a number", key));
    *out = *v;
  }
  if (j.contains("metric") && j["metric"].is_string())
    r.metric_name = j["metric"].get<std::string>();
  if (j.contains("extra")) r.extra = j["extra"];
  return r;
}

Result<JsonlLog, TrainError> JsonlLog::open(const std::filesystem::path& path, bool truncate) {
  std::FILE* f = std::fopen(path.c_str(), truncate ? "w" : "a+");
  if (!f) return io_error(path.string(), errno_message("cannot open the log", errno));
  // A crash mid-line leaves no newline at the end; terminate that line so
  // the next record is not glued to it.
  if (!truncate && std::fseek(f, 0, SEEK_END) == 0 && std::ftell(f) > 0) {
    if (std::fseek(f, -1, SEEK_END) == 0 && std::fgetc(f) != '\n') {
      std::fseek(f, 0, SEEK_END);
      std::fputc('\n', f);
    }
  }
  return JsonlLog(f, path);
}

JsonlLog::JsonlLog(JsonlLog&& o) noexcept : f_(o.f_), path_(std::move(o.path_)) {
  o.f_ = nullptr;
}

JsonlLog& JsonlLog::operator=(JsonlLog&& o) noexcept {
  if (this != &o) {
    if (f_) std::fclose(f_);
    f_ = o.f_;
    path_ = std::move(o.path_);
    o.f_ = nullptr;
  }
  return *this;
}

JsonlLog::~JsonlLog() {
  if (f_) std::fclose(f_);
}

Status<TrainError> JsonlLog::append(const EpochRecord& record) {
  return append_json(record.to_json());
}

Status<TrainError> JsonlLog::append_json(const nlohmann::ordered_json& value) {
  if (!f_) return io_error(path_.string(), "the log is closed");
  std::string line;
  try {
    line = value.dump() + "\n";
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument_error(fmt::format("log record is not valid UTF-8: {}", e.what()));
  }
  // "a+" mode appends every write at the end, whatever the read position.
  if (inject_write_failure(path_.native()) ||
      std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0)
    return io_error(path_.string(), errno_message("cannot append to the log", errno));
  return {};
}

Result<LogContents, TrainError> read_jsonl_log(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return TrainError{TrainErrorKind::NotFound, path.string(), "cannot open the log", {}};
  LogContents out;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      out.skipped.push_back(fmt::format("line {}: not valid JSON (cut short by a crash?)", n));
      continue;
    }
    Result<EpochRecord, TrainError> r = EpochRecord::from_json(j);
    if (!r) {
      out.skipped.push_back(fmt::format("line {}: {}", n, r.error().message));
      continue;
    }
    out.records.push_back(std::move(r).value());
  }
  return out;
}

namespace {

std::string num(double x) {
  return std::isnan(x) ? "-" : fmt::format("{:.4g}", x);
}

std::string duration(double s) {
  if (std::isnan(s)) return "-";
  if (s < 60) return fmt::format("{:.1f}s", s);
  const int64_t t = static_cast<int64_t>(std::llround(s));
  if (t < 3600) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}h{:02d}m", t / 3600, (t / 60) % 60);
}

/// Index of the best epoch, or -1.
int64_t best_index(const std::vector<EpochRecord>& r, MetricMode mode) {
  int64_t best = -1;
  for (size_t i = 0; i < r.size(); ++i) {
    const double x = r[i].valid_metric;
    if (std::isnan(x)) continue;
    if (best < 0 || (mode == MetricMode::Max ? x > r[best].valid_metric : x < r[best].valid_metric))
      best = static_cast<int64_t>(i);
  }
  if (best >= 0) return best;
  // No metric: the lowest validation loss, then the lowest training loss.
  for (double EpochRecord::* field : {&EpochRecord::valid_loss, &EpochRecord::train_loss}) {
    for (size_t i = 0; i < r.size(); ++i)
      if (!std::isnan(r[i].*field) && (best < 0 || r[i].*field < r[best].*field))
        best = static_cast<int64_t>(i);
    if (best >= 0) return best;
  }
  return -1;
}

// The index of the best record: `best_epoch`'s when given, else by `mode`.
int64_t best_record(const std::vector<EpochRecord>& records, MetricMode mode, int64_t best_epoch) {
  for (size_t i = 0; i < records.size() && best_epoch >= 0; ++i)
    if (records[i].epoch == best_epoch) return static_cast<int64_t>(i);
  return best_index(records, mode);
}

double total_seconds(const std::vector<EpochRecord>& records) {
  double total = 0;
  for (const EpochRecord& r : records)
    if (!std::isnan(r.seconds)) total += r.seconds;
  return total;
}

} // namespace

std::string format_epoch_header(const std::string& metric) {
  return fmt::format("  {:>6} {:>11} {:>11} {:>11} {:>10} {:>8} {:>10}\n", "epoch", "train loss",
                     "valid loss", metric.substr(0, 11), "lr", "time", "evals/s") +
         fmt::format("  {:-<6} {:-<11} {:-<11} {:-<11} {:-<10} {:-<8} {:-<10}\n", "", "", "", "",
                     "", "", "");
}

std::string format_epoch_row(const EpochRecord& r, bool best) {
  return fmt::format("{} {:>6} {:>11} {:>11} {:>11} {:>10} {:>8} {:>10}\n", best ? "*" : " ",
                     r.epoch, num(r.train_loss), num(r.valid_loss), num(r.valid_metric), num(r.lr),
                     duration(r.seconds), num(r.evals_per_second));
}

std::string format_best_line(const std::vector<EpochRecord>& records, MetricMode mode,
                             int64_t best_epoch) {
  const int64_t best = best_record(records, mode, best_epoch);
  if (best < 0) return {};
  const EpochRecord& b = records[static_cast<size_t>(best)];
  std::string out = fmt::format("best epoch {}: train loss {}", b.epoch, num(b.train_loss));
  if (!std::isnan(b.valid_loss)) out += fmt::format(", valid loss {}", num(b.valid_loss));
  if (!std::isnan(b.valid_metric))
    out += fmt::format(", {} {}", records.back().metric_name, num(b.valid_metric));
  return out + fmt::format("; {} epochs in {}\n", records.size(), duration(total_seconds(records)));
}

std::string format_summary(const std::vector<EpochRecord>& records, MetricMode mode,
                           size_t max_rows, int64_t best_epoch) {
  if (records.empty()) return "no epochs were run\n";
  const int64_t best = best_record(records, mode, best_epoch);
  std::set<size_t> rows;
  if (records.size() <= max_rows || max_rows < 8) {
    for (size_t i = 0; i < records.size(); ++i)
      rows.insert(i);
  } else {
    for (size_t i = 0; i < 3; ++i)
      rows.insert(i);
    for (size_t i = records.size() - (max_rows - 4); i < records.size(); ++i)
      rows.insert(i);
    if (best >= 0) rows.insert(static_cast<size_t>(best));
  }
  std::string out = format_epoch_header(records.back().metric_name);
  size_t prev = 0;
  bool first = true;
  for (size_t i : rows) {
    if (!first && i != prev + 1) out += fmt::format("  {:>6}\n", "...");
    out += format_epoch_row(records[i], static_cast<int64_t>(i) == best);
    prev = i;
    first = false;
  }
  return out + format_best_line(records, mode, best_epoch);
}

void print_summary(const std::vector<EpochRecord>& records, MetricMode mode, std::FILE* out,
                   int64_t best_epoch) {
  fmt::print(out, "{}", format_summary(records, mode, 24, best_epoch));
  std::fflush(out);
}

} // namespace plastic::rt
