// Early stopping with roll-back to the best validation parameters.
//
// Paper 002 (App. C): "If the validation loss did not decrease after 60
// epochs, training was terminated and the model was rolled back to the point
// at which it achieved the lowest loss on the validation set." update() is
// called once per epoch with the validation metric and the current
// parameters; an improvement (by more than min_delta, absolute) copies the
// parameters; should_stop() turns true once more than `patience` consecutive
// epochs went without improvement — the NCDE/NRDE reference code's
// `epoch > best_epoch + patience`, and the same counting as
// ReduceLROnPlateau's patience. restore_best() writes the best parameters
// back. A NaN metric is never an improvement.
//
// A tie on the metric can be broken by a second value, smaller is better:
// validation accuracy on a few dozen series takes a handful of values, and
// among the epochs that reach the best one the lowest validation loss is
// the model least over-confident (a lexicographic order; min_delta applies
// to the metric only).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/support/train_error.h"
#include "runtime/train/plateau.h"

namespace plastic::rt {

struct EarlyStoppingOptions {
  MetricMode mode = MetricMode::Min;
  int patience = 60;    ///< bad epochs tolerated; 0 disables stopping (best tracking stays on)
  double min_delta = 0; ///< an improvement must beat the best by more than this
};

template <class T> class EarlyStopping {
public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});

  /// Records one epoch's validation metric. Returns true (and keeps a copy of
  /// `params`) when it improves on the best so far, or equals it with a
  /// smaller `tie_break` (NaN: ties are never improvements).
  bool update(int64_t epoch, double metric, std::span<const T> params,
              double tie_break = std::numeric_limits<double>::quiet_NaN());
  /// Patience exhausted.
  bool should_stop() const;
  /// Whether some epoch improved on the initial worst value.
  bool has_best() const { return best_epoch_ >= 0; }
  double best_metric() const { return best_; }
  /// Epoch of the best metric, -1 if none.
  int64_t best_epoch() const { return best_epoch_; }
  int bad_epochs() const { return bad_; }
  const std::vector<T>& best_params() const { return best_params_; }
  /// Copies the best parameters into `params`. Fails if there is no best or the size differs.
  Status<TrainError> restore_best(std::span<T> params) const;

  /// Counters and best metric (the parameters go to the checkpoint as tensors).
  nlohmann::json state() const;
  /// Restores state() output together with the saved best parameters.
  Status<TrainError> load_state(const nlohmann::json& state, std::vector<T> best_params);

private:
  EarlyStoppingOptions o_;
  double best_;
  double best_tie_ = std::numeric_limits<double>::quiet_NaN(); ///< tie_break of the best epoch
  int64_t best_epoch_ = -1;
  int bad_ = 0;
  std::vector<T> best_params_;
};

extern template class EarlyStopping<float>;
extern template class EarlyStopping<double>;

} // namespace plastic::rt
