// The step log of `plastic train --log-steps`: every batch of a run, so
// that a reference implementation (bench/reference/train_equivalence.py)
// can retrain the model step for step and compare.
//
// Files in the run folder:
//   initial.safetensors  the parameters before the first step (a fresh run)
//   steps.jsonl          one line per batch: epoch, batch, the samples in
//                        batch order (the data set's ids, "file:line"), the
//                        mean loss, the learning rate, the gradient's norm
//                        before clipping, and whether the step was taken
//   last.safetensors     the parameters after the last step (model.safetensors
//                        may hold an earlier, better epoch's)
// On resume the lines of the batches the checkpoint covers are kept and the
// rest (logged before a crash, trained again) are dropped, as train.jsonl.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/io/epoch_log.h"
#include "runtime/support/result.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

struct StepRecord {
  int64_t epoch = 0;                ///< 1-based
  int64_t batch = 0;                ///< 0-based within the epoch
  std::vector<std::string> samples; ///< the data set's sample ids, in batch order
  double loss = 0;                  ///< the batch's mean loss (NaN when it failed)
  double lr = 0;
  double grad_norm = 0; ///< global 2-norm before clipping
  bool taken = false;   ///< the optimiser stepped (not skipped)
};

class StepLog {
public:
  /// RUN/steps.jsonl: afresh, or on resume keeping the batches before
  /// (`epoch`, `next_batch`), the first batch still to train.
  static Result<StepLog, TrainError> open(const std::filesystem::path& run_dir, bool resumed,
                                          int64_t epoch, int64_t next_batch);
  Status<TrainError> append(const StepRecord& r);

private:
  explicit StepLog(JsonlLog log) : log_(std::move(log)) {}
  JsonlLog log_;
};

} // namespace plastic::rt
