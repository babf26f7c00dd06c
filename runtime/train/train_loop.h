// The model-independent training loop: epochs of optimiser steps around
// caller-supplied batch and validation functions, with everything else of a
// run — schedules, clipping, early stopping, checkpoints and resume, Ctrl-C,
// logs, progress bar, summary and plot.
//
// The caller (the driver, an AOT model binary, a test) knows how to compute
// a batch's loss and gradient and how to validate; this loop knows nothing
// about kernels. Randomness is reproducible: epoch e's generator is
// Rng::for_epoch(seed, e), handed to begin_epoch (shuffling) and train_batch (dropout,
// noise). A run interrupted at any batch and resumed from its checkpoint
// finishes with bit-identical parameters to an uninterrupted run, provided
// the hooks are deterministic functions of their arguments.
//
// Files in run_dir (all optional — an empty run_dir writes nothing):
//   checkpoints/         CheckpointDir (params, optimiser, schedule, early stopping, RNG)
//   train.jsonl          one line per epoch (epoch_log.h)
//   model.safetensors    the final parameters (rolled back to the best epoch when validated)
//   learning_curve.png   with plot = true (plot.h)
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/io/epoch_log.h"
#include "runtime/io/param_table.h"
#include "runtime/support/rng.h"
#include "runtime/support/train_error.h"
#include "runtime/train/norm_penalty.h"
#include "runtime/train/optimizer.h"
#include "runtime/train/plateau.h"
#include "runtime/train/step_log.h"

namespace plastic::rt {

/// What one batch reports.
struct BatchResult {
  double loss = std::numeric_limits<double>::quiet_NaN(); ///< mean loss over the batch
  int64_t samples = 0;                                    ///< samples in the batch
  /// Why the loss is missing when the solver failed (max_steps exceeded, a
  /// step size underflow, ...): said instead of "a non-finite loss".
  std::string failure{};
  /// The batch's sample ids in batch order, for the step log (filled when
  /// asked: HookOptions::sample_ids).
  std::vector<std::string> sample_ids{};
};

/// What a validation pass reports.
struct ValidationResult {
  double loss = std::numeric_limits<double>::quiet_NaN();
  double metric = std::numeric_limits<double>::quiet_NaN(); ///< accuracy, AUROC, ...
};

template <class T> struct TrainHooks {
  int64_t batches_per_epoch = 0;
  /// Start of an epoch, with its generator (shuffle the data here). Optional.
  std::function<void(int64_t epoch, Rng& rng)> begin_epoch;
  /// One batch: return the mean loss and ADD the gradient of that mean loss
  /// to `grads` (zeroed before the call).
  std::function<Result<BatchResult, TrainError>(
      int64_t epoch, int64_t batch, std::span<const T> params, std::span<T> grads, Rng& rng)>
      train_batch;
  /// Validation on the current parameters. Optional.
  std::function<Result<ValidationResult, TrainError>(std::span<const T> params)> validate;
  /// Before the first step (with the number of epochs already done) and
  /// after each epoch: fails when the parameters are not what they should
  /// be (data-parallel ranks compare theirs). Optional.
  std::function<Status<TrainError>(int64_t epoch, std::span<const T> params)> check_params;
};

/// The value schedules and early stopping watch.
enum class Monitor { ValidLoss, ValidMetric, TrainLoss };

struct TrainConfig {
  int64_t epochs = 100;
  uint64_t seed = 0;
  OptimizerConfig optimizer;
  /// make_schedule configuration; null = constant. A plateau schedule
  /// without a "mode" gets the monitor's.
  nlohmann::json schedule;
  double clip_norm = 0;  ///< clip_grad_norm max_norm; 0 = off
  double clip_value = 0; ///< clip_grad_value; 0 = off
  /// λ Σ ‖θ_g‖ joins each batch's loss and gradient before clipping; the
  /// validation loss stays the data's alone (norm_penalty.h).
  NormPenalty norm_penalty;
  /// Paper 002 watches the validation loss for both the schedule and early stopping.
  Monitor monitor = Monitor::ValidLoss;
  MetricMode metric_mode = MetricMode::Max; ///< whether valid_metric is better large
  std::string metric_name = "metric";
  int early_stopping_patience = 0; ///< epochs without improvement before stopping; 0 = never
  bool restore_best = true;        ///< finish with the best epoch's parameters (needs validation)
  std::filesystem::path run_dir;   ///< empty: no files
  int keep_checkpoints = 3;
  int checkpoint_every = 1; ///< epochs between checkpoints (the last epoch is always saved)
  bool resume = true;       ///< continue from run_dir's newest checkpoint if there is one
  /// false: read run_dir's checkpoints to resume, but write nothing there
  /// (the ranks other than 0 of a data-parallel run; rank 0 writes).
  bool writer = true;
  bool plot = false;
  /// Every batch in RUN/steps.jsonl, with initial.safetensors and
  /// last.safetensors (step_log.h); the hooks fill BatchResult::sample_ids.
  bool log_steps = false;
  bool progress = true;      ///< progress bar on stderr
  bool print_summary = true; ///< summary table on stdout at the end
  /// Each epoch's row of the table on stdout as the epoch ends, flushed (for
  /// a log file, a pipe, a cluster's log: a run killed mid-way keeps every
  /// line it printed); the end then prints the best epoch's line alone.
  bool live_rows = false;
  /// Stop after this epoch with a checkpoint, as if interrupted but on
  /// purpose (`train --until`): the schedule still spans `epochs`, so a run
  /// trained in pieces equals one trained at once. 0 = never.
  int64_t pause_after = 0;
  std::string model_hash; ///< checked on resume
  nlohmann::json dims = nlohmann::json::object();
  nlohmann::json run_config = nlohmann::json::object(); ///< recorded in checkpoints
};

/// Paper 002 (App. C), the neural RDE set-up: Adam with lr 0.032 / batch
/// size; the rate divided by 10 after 15 epochs without a lower validation
/// loss; training stopped after 60 such epochs and rolled back to the best
/// validation loss. Paper 000 (App. B) builds on the same public code for
/// its CDE/RDE runs, with its own learning rates (set optimizer.lr).
TrainConfig neural_rde_config(int64_t batch_size, int64_t max_epochs = 1000);

struct TrainOutcome {
  int64_t epochs_completed = 0;
  int64_t steps = 0;
  bool resumed = false;
  bool interrupted = false; ///< stopped by SIGINT/SIGTERM after saving a checkpoint
  bool early_stopped = false;
  bool paused = false; ///< stopped at TrainConfig::pause_after, checkpoint saved
  int64_t best_epoch = -1;
  double best_value = std::numeric_limits<double>::quiet_NaN(); ///< of the monitored value
  int64_t skipped_steps =
      0; ///< steps skipped: a non-finite loss or gradient, or one the optimiser refused
  std::vector<EpochRecord> history;  ///< every epoch of the run, resumed ones included
  std::vector<std::string> warnings; ///< e.g. no gradient plot, a damaged checkpoint skipped
};

/// Trains `params` (laid out by `table`) for config.epochs epochs.
///
/// `optimizer`, when given, is stepped instead of a new one made from
/// config.optimizer, so its moments and step count carry over from earlier
/// calls (the REPL trains a model a few epochs at a time); it must be sized
/// for the table, and its learning rate is set by the schedule as usual.
template <class T>
Result<TrainOutcome, TrainError> train(const ParamTable& table, std::span<T> params,
                                       const TrainHooks<T>& hooks, const TrainConfig& config,
                                       Optimizer<T>* optimizer = nullptr);

extern template Result<TrainOutcome, TrainError> train<float>(const ParamTable&, std::span<float>,
                                                              const TrainHooks<float>&,
                                                              const TrainConfig&,
                                                              Optimizer<float>*);
extern template Result<TrainOutcome, TrainError> train<double>(const ParamTable&, std::span<double>,
                                                               const TrainHooks<double>&,
                                                               const TrainConfig&,
                                                               Optimizer<double>*);

} // namespace plastic::rt
