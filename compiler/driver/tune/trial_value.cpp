// A trial's run folder, read back (see trial_value.h).
#include "compiler/driver/tune/trial_value.h"

#include <cmath>
#include <fstream>

#include "runtime/io/epoch_log.h"

namespace plastic::driver {

namespace fs = std::filesystem;

Selection selection_for(const std::string& select) {
  Selection s;
  s.select = select;
  s.mode = select == "accuracy" || select == "auroc" ? rt::MetricMode::Max : rt::MetricMode::Min;
  return s;
}

std::optional<double> best_value(const fs::path& run, const Selection& by, int64_t upto) {
  auto log = rt::read_jsonl_log(run / "train.jsonl");
  if (!log) return std::nullopt;
  auto value_of = [&](const rt::EpochRecord& r) {
    return by.select == "loss" ? r.valid_loss : r.valid_metric;
  };
  bool validated = false;
  for (const rt::EpochRecord& r : log.value().records)
    validated = validated || !std::isnan(r.valid_loss);
  std::optional<double> best;
  for (const rt::EpochRecord& r : log.value().records) {
    if (r.epoch > upto) continue;
    const double v = validated ? value_of(r) : r.train_loss;
    if (!std::isfinite(v)) continue;
    const bool lower = by.mode == rt::MetricMode::Min || !validated;
    if (!best || (lower ? v < *best : v > *best)) best = v;
  }
  return best;
}

bool run_ended(const fs::path& run) {
  std::error_code ec;
  return fs::exists(run / "summary.json", ec);
}

std::string failure_reason(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last, said;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    if (line.rfind("plastic:", 0) == 0 || line.find("error:") != std::string::npos) said = line;
  }
  return said.empty() ? last : said;
}

} // namespace plastic::driver
