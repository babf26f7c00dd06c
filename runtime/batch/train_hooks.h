// The glue between a prepared data set and runtime/train's training loop:
// TrainHooks that shuffle the training samples each epoch (with the epoch's
// generator, so runs are reproducible and resumable), cut them into
// batches, and validate with evaluate().
//
// A numerical solver failure in a batch (non-finite state, step size
// underflow, too many steps) makes that batch's loss NaN, which the
// training loop counts as a skipped step; `on_failure` receives its
// description. Any other failure (bad model, bad data) stops training with
// a TrainError. With `explain` set, the first few batches that meet a
// non-finite value (a failed solve, a non-finite loss or gradient) are
// handed to it, and its located diagnostic follows the description.
//
// With options.batch.comm over several ranks, every rank runs the same
// hooks on the same data: each computes its share of every batch
// (batch_gradient.h), and after every epoch the ranks' parameters are
// compared (replica_check.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/nonfinite_explainer.h"
#include "runtime/batch/predict.h"
#include "runtime/train/train_loop.h"

namespace plastic::rt {

struct HookOptions {
  int64_t batch_size = 32;
  bool shuffle = true;
  BatchOptions batch;
  std::function<void(const std::string&)> on_failure; ///< skipped batches; optional
  NonFiniteExplainer explain; ///< where a non-finite value came from; optional
  int explain_limit = 3;      ///< batches explained per run (each re-runs a sample)
  bool sample_ids = false;    ///< fill BatchResult::sample_ids (the step log)
  /// Validate by accuracy (Evaluation::accuracy), not the task's metric: a
  /// binary task's --select accuracy.
  bool validate_by_accuracy = false;
};

/// Hooks over `train` (and `valid`, may be null: no validation). The model,
/// the data sets and `options` must outlive the hooks.
template <class T>
TrainHooks<T> make_train_hooks(const plastic_model& model, const PreparedData& train,
                               const PreparedData* valid, const HookOptions& options);

/// A Status as a TrainError (for hooks and drivers).
TrainError to_train_error(const Status<SolveFailure>& status);

extern template TrainHooks<float> make_train_hooks<float>(const plastic_model&, const PreparedData&,
                                                          const PreparedData*, const HookOptions&);
extern template TrainHooks<double> make_train_hooks<double>(const plastic_model&,
                                                            const PreparedData&,
                                                            const PreparedData*,
                                                            const HookOptions&);

} // namespace plastic::rt
