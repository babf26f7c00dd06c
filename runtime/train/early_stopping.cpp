// Early stopping (semantics in early_stopping.h).
#include "runtime/train/early_stopping.h"

#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "runtime/support/json_util.h"

namespace plastic::rt {

template <class T>
EarlyStopping<T>::EarlyStopping(EarlyStoppingOptions options)
    : o_(options),
      best_(options.mode == MetricMode::Min ? std::numeric_limits<double>::infinity()
                                            : -std::numeric_limits<double>::infinity()) {}

template <class T>
bool EarlyStopping<T>::update(int64_t epoch, double metric, std::span<const T> params,
                              double tie_break) {
  const bool better =
      o_.mode == MetricMode::Min ? metric < best_ - o_.min_delta : metric > best_ + o_.min_delta;
  // NaN compares false: a NaN tie-break (or best) never wins a tie.
  const bool won_tie = has_best() && metric == best_ && tie_break < best_tie_;
  if (!better && !won_tie) {
    ++bad_;
    return false;
  }
  best_ = metric;
  best_tie_ = tie_break;
  best_epoch_ = epoch;
  bad_ = 0;
  best_params_.assign(params.begin(), params.end());
  return true;
}

template <class T> bool EarlyStopping<T>::should_stop() const {
  return o_.patience > 0 && bad_ > o_.patience;
}

template <class T> Status<TrainError> EarlyStopping<T>::restore_best(std::span<T> params) const {
  if (!has_best())
    return invalid_argument_error("no best parameters to roll back to: no epoch improved");
  if (params.size() != best_params_.size())
    return invalid_argument_error(
        fmt::format("best parameters have {} elements but the model has {}", best_params_.size(),
                    params.size()));
  std::copy(best_params_.begin(), best_params_.end(), params.begin());
  return {};
}

template <class T> nlohmann::json EarlyStopping<T>::state() const {
  return {{"best", json_double(best_)},
          {"best_tie", json_double(best_tie_)},
          {"best_epoch", best_epoch_},
          {"bad_epochs", bad_}};
}

template <class T>
Status<TrainError> EarlyStopping<T>::load_state(const nlohmann::json& j,
                                                std::vector<T> best_params) {
  const auto best = read_json_double(j, "best");
  if (!best || !j.contains("best_epoch") || !j.at("best_epoch").is_number_integer() ||
      !j.contains("bad_epochs") || !j.at("bad_epochs").is_number_integer())
    return invalid_argument_error("malformed early-stopping state");
  const int64_t best_epoch = j.at("best_epoch").get<int64_t>();
  const int bad = j.at("bad_epochs").get<int>();
  if (bad < 0) return invalid_argument_error("malformed early-stopping state: negative bad epochs");
  if (best_epoch < 0 && !best_params.empty())
    return invalid_argument_error(
        "early-stopping state: best parameters present without a best epoch");
  // Absent in checkpoints written before ties were broken: no tie-break.
  const auto tie = j.contains("best_tie") ? read_json_double(j, "best_tie")
                                          : std::optional<double>(std::nan(""));
  if (!tie) return invalid_argument_error("malformed early-stopping state: best_tie");
  best_ = *best;
  best_tie_ = *tie;
  best_epoch_ = best_epoch;
  bad_ = bad;
  best_params_ = std::move(best_params);
  return {};
}

template class EarlyStopping<float>;
template class EarlyStopping<double>;

} // namespace plastic::rt
