// Checkpoints: a directory of crash-safe, self-validating training snapshots.
//
// One checkpoint is three files sharing a stem "ckpt-<seq>-e<epoch>":
//   .params.safetensors   model parameters (and e.g. "best/..." copies),
//   .optim.safetensors    optimiser state (state_tensors.h layout),
//   .json                 metadata: model hash, dims, epoch, step, RNG state,
//                         best metric, run configuration, extra state
//                         (schedules, early stopping), and the byte count
//                         and hash of both tensor files.
// Each file is written atomically (atomic_file.h) and the JSON goes last: it
// is the commit record. A checkpoint exists once its JSON exists, and its
// JSON only names tensor files that were completely written and synced
// first, so `kill -9` at any instant leaves the previous checkpoint or the
// new one loadable. Sequence numbers grow with every save and are never
// reused, so a new checkpoint never overwrites a file an older one needs.
// After a save the directory keeps the newest `keep_last` checkpoints;
// files of interrupted saves are removed. One writer per directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/io/safetensors.h"
#include "runtime/support/train_error.h"

namespace plastic::rt {

/// What a checkpoint records besides tensors.
struct CheckpointMeta {
  int64_t epoch = 0;      ///< completed epochs
  int64_t step = 0;       ///< completed optimiser steps
  std::string model_hash; ///< hash of the compiled model (spec + dims + dtype), checked on resume
  nlohmann::json dims = nlohmann::json::object(); ///< the model's dims ({"d_head": 20, ...})
  std::string rng_state;                          ///< Rng::state() of the run's generator
  double best_metric = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json config = nlohmann::json::object(); ///< the run's configuration
  nlohmann::json extra = nlohmann::json::object();  ///< schedule, early stopping, anything else
};

/// A whole checkpoint in memory.
struct Checkpoint {
  CheckpointMeta meta;
  SafetensorsFile params;
  SafetensorsFile optimizer;
};

/// A committed checkpoint in a directory.
struct CheckpointEntry {
  int64_t seq = 0;
  int64_t epoch = 0;
  std::filesystem::path json; ///< its commit record
};

/// load_latest's answer: the newest checkpoint that validated, and why newer ones did not.
struct LoadedCheckpoint {
  Checkpoint checkpoint;
  CheckpointEntry entry;
  std::vector<TrainError> skipped; ///< newer checkpoints that failed validation (normally empty)
};

/// Fails (Mismatch) unless the checkpoint was saved by the model with this hash.
Status<TrainError> check_model_hash(const CheckpointMeta& meta, const std::string& model_hash,
                                    const std::string& file);

/// A directory of checkpoints.
class CheckpointDir {
public:
  /// Opens (creating if needed) `dir`, removing temporaries and files of
  /// interrupted saves. keep_last <= 0 keeps every checkpoint.
  static Result<CheckpointDir, TrainError> open(const std::filesystem::path& dir,
                                                int keep_last = 3);

  /// `dir` to read from only: nothing is created, removed or pruned (a
  /// data-parallel rank resuming from the folder that rank 0 owns).
  static CheckpointDir read_only(const std::filesystem::path& dir) { return {dir, 0}; }

  const std::filesystem::path& path() const { return dir_; }

  /// Saves a checkpoint as the newest one and prunes old ones. Returns its entry.
  Result<CheckpointEntry, TrainError> save(const Checkpoint& checkpoint);

  /// Committed checkpoints, newest first.
  std::vector<CheckpointEntry> list() const;

  /// Loads and validates one checkpoint (sizes, hashes, safetensors structure).
  Result<Checkpoint, TrainError> load(const CheckpointEntry& entry) const;

  /// The newest checkpoint that validates; NotFound when there is none.
  Result<LoadedCheckpoint, TrainError> load_latest() const;

private:
  CheckpointDir(std::filesystem::path dir, int keep_last)
      : dir_(std::move(dir)), keep_last_(keep_last) {}
  /// Removes checkpoints beyond keep_last and data files without a commit record.
  Status<TrainError> prune(int64_t newest_seq) const;

  std::filesystem::path dir_;
  int keep_last_ = 3;
};

} // namespace plastic::rt
