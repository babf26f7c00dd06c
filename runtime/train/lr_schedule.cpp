// Constant and cosine schedules, and the schedule factory.
#include "runtime/train/lr_schedule.h"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "runtime/support/json_util.h"
#include "runtime/train/plateau.h"

namespace plastic::rt {

namespace {
/// Reads an integer step counter from a state object.
std::optional<int64_t> read_count(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number_integer()) return std::nullopt;
  const int64_t v = j.at(key).get<int64_t>();
  if (v < 0) return std::nullopt;
  return v;
}
} // namespace

nlohmann::json ConstantLr::state() const {
  return {{"kind", kind()}, {"lr", json_double(lr_)}, {"steps", steps_}};
}

Status<TrainError> ConstantLr::load_state(const nlohmann::json& j) {
  const auto lr = read_json_double(j, "lr");
  const auto steps = read_count(j, "steps");
  if (!lr || !steps) return invalid_argument_error("malformed constant schedule state");
  lr_ = *lr;
  steps_ = *steps;
  return {};
}

Status<TrainError> CosineOptions::check() const {
  if (!(base_lr >= 0) || !(min_lr >= 0) || !std::isfinite(base_lr) || !std::isfinite(min_lr))
    return invalid_argument_error(
        fmt::format("cosine schedule: bad rates base {} min {}", base_lr, min_lr));
  if (total_steps <= 0 || warmup_steps < 0 || warmup_steps > total_steps)
    return invalid_argument_error(fmt::format(
        "cosine schedule: need 0 <= warmup_steps ({}) <= total_steps ({}) and total_steps > 0",
        warmup_steps, total_steps));
  if (!(warmup_start_factor > 0 && warmup_start_factor <= 1))
    return invalid_argument_error(fmt::format(
        "cosine schedule: warmup_start_factor {} must be in (0, 1] (as torch's LinearLR)",
        warmup_start_factor));
  return {};
}

double CosineLr::at(int64_t k) const {
  const CosineOptions& o = o_;
  if (k < 0) k = 0;
  if (k < o.warmup_steps) {
    const double f = static_cast<double>(k) / static_cast<double>(o.warmup_steps);
    return o.base_lr * (o.warmup_start_factor + (1.0 - o.warmup_start_factor) * f);
  }
  const int64_t span = o.total_steps - o.warmup_steps;
  if (span <= 0 || k >= o.total_steps) return span <= 0 ? o.base_lr : o.min_lr;
  const double x = static_cast<double>(k - o.warmup_steps) / static_cast<double>(span);
  return o.min_lr + (o.base_lr - o.min_lr) * (1.0 + std::cos(std::numbers::pi * x)) / 2.0;
}

nlohmann::json CosineLr::state() const {
  return {{"kind", kind()}, {"steps", steps_}};
}

Status<TrainError> CosineLr::load_state(const nlohmann::json& j) {
  const auto steps = read_count(j, "steps");
  if (!steps) return invalid_argument_error("malformed cosine schedule state");
  steps_ = *steps;
  return {};
}

Result<std::unique_ptr<LrSchedule>, TrainError> make_schedule(const nlohmann::json& config,
                                                              double base_lr) {
  if (config.is_null()) return std::unique_ptr<LrSchedule>(std::make_unique<ConstantLr>(base_lr));
  if (!config.is_object())
    return invalid_argument_error("the schedule configuration must be a JSON object");
  try {
    const std::string kind = config.value("kind", std::string("constant"));
    if (kind == "constant")
      return std::unique_ptr<LrSchedule>(std::make_unique<ConstantLr>(base_lr));
    if (kind == "cosine") {
      CosineOptions o;
      o.base_lr = base_lr;
      o.min_lr = config.value("min_lr", o.min_lr);
      o.total_steps = config.value("total_steps", o.total_steps);
      o.warmup_steps = config.value("warmup_steps", o.warmup_steps);
      o.warmup_start_factor = config.value("warmup_start_factor", o.warmup_start_factor);
      if (Status<TrainError> s = o.check(); !s) return s.error();
      return std::unique_ptr<LrSchedule>(std::make_unique<CosineLr>(o));
    }
    if (kind == "plateau") {
      PlateauOptions o;
      o.base_lr = base_lr;
      const std::string mode = config.value("mode", std::string("min"));
      if (mode != "min" && mode != "max")
        return invalid_argument_error(fmt::format("plateau schedule: unknown mode '{}'", mode),
                                      "use min or max");
      o.mode = mode == "min" ? MetricMode::Min : MetricMode::Max;
      const std::string tmode = config.value("threshold_mode", std::string("rel"));
      if (tmode != "rel" && tmode != "abs")
        return invalid_argument_error(
            fmt::format("plateau schedule: unknown threshold_mode '{}'", tmode), "use rel or abs");
      o.threshold_mode = tmode == "rel" ? ThresholdMode::Rel : ThresholdMode::Abs;
      o.factor = config.value("factor", o.factor);
      o.patience = config.value("patience", o.patience);
      o.threshold = config.value("threshold", o.threshold);
      o.cooldown = config.value("cooldown", o.cooldown);
      o.min_lr = config.value("min_lr", o.min_lr);
      o.eps = config.value("eps", o.eps);
      if (Status<TrainError> s = o.check(); !s) return s.error();
      return std::unique_ptr<LrSchedule>(std::make_unique<ReduceLrOnPlateau>(o));
    }
    return invalid_argument_error(fmt::format("unknown schedule '{}'", kind),
                                  "use constant, cosine or plateau");
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument_error(fmt::format("bad schedule configuration: {}", e.what()));
  }
}

} // namespace plastic::rt
