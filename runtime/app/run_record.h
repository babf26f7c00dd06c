// The record of how a training run was made, run.json in its run folder:
// the model (file, identity, --set values, element type), the data (spec,
// a fingerprint of its files, the split seed and validation fraction, the
// column flags live in data.json beside it) and every training option.
//
// `eval` and `predict` read it to need no flag repeated: the data, the
// split, the --set values and the dtype of the run are used unless given
// anew, so they reproduce the run's numbers. `train --resume` reads it to
// refuse what would mix two runs — another data set, a changed model,
// const or --set value — and to continue with the run's own options:
// an option left out is the run's, one given with a different value is
// refused, except --epochs (continuing longer or shorter is harmless).
// We refuse a changed --lr or --schedule rather than applying it mid-run:
// a run whose learning rate changed part-way is not reproducible from its
// record, and a user who wants that can start a new run from the
// checkpoint's parameters.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/abi.h"
#include "runtime/app/app_error.h"
#include "runtime/app/data_fingerprint.h"
#include "runtime/app/requests.h"

namespace plastic::rt {

struct RunRecord {
  // The model.
  std::string model_file;
  std::string model_identity; ///< model_identity(): interface, source, --set values, dtype
  std::string interface_hash; ///< model_hash(): the interface alone
  std::map<std::string, double> sets;
  std::string dtype = "f32";
  // The data.
  std::string data, valid;
  bool oi = false;
  uint64_t split_seed = 0;
  double valid_fraction = 0.15;
  DataFingerprint data_fingerprint, valid_fingerprint;
  // Training.
  TrainRequest train; ///< every option as the run used it (its `run` part is filled too)
  int ranks = 1;      ///< processes of the data-parallel job (mpirun -np); 1 without MPI
  /// Samples per tile the model was compiled with: it orders the lane sums
  /// and decides which samples share a time grid, so resuming or
  /// evaluating the run compiles with it again. 0: not recorded.
  int lanes = 0;
};

/// "delta_cde-…": the interface hash (model_hash.h) when the model has no
/// source (a model binary); otherwise a hash of the interface, the model as
/// printed back (so comments and layout do not count, consts do), the
/// --set values and the element type.
std::string model_identity(const plastic_model& model, const ModelSource& source,
                           const std::string& dtype);

/// Whether `model` compiled from `source` is the run's model: the same
/// identity, or — when either side has no source (a model binary) — the
/// same interface.
bool same_model(const RunRecord& record, const plastic_model& model, const ModelSource& source,
                const std::string& dtype);

/// The record of a run about to train with `request` on `model`; computes
/// the data fingerprints (reads the data files once).
Result<RunRecord, AppError> make_run_record(const plastic_model& model,
                                            const TrainRequest& request);

/// Writes `dir`/run.json (and `dir`/model.ode when the source is known), atomically.
Status<AppError> write_run_record(const std::filesystem::path& dir, const RunRecord& record,
                                  const ModelSource& source);

/// Reads `dir`/run.json; nullopt when there is none (a run made before the
/// record existed). Unknown fields are ignored. For a cross-validation's
/// folder (train --folds), the record its folds share (fold 0).
Result<std::optional<RunRecord>, AppError> read_run_record(const std::filesystem::path& dir);

/// The run folder of a --parameters argument (a folder, or a file in one).
std::filesystem::path run_folder_of(const std::string& parameters);

/// `eval` / `predict`: fills the options of `run` that were not given from
/// the record (data, valid, split, seed, batch, oi).
void recall_run_options(const RunRecord& record, RunOptions& run);

/// `train --resume`: refuses a changed model or data set and any option
/// given with another value than the run's; the options left out take the
/// run's values. Prints what it decides.
Status<AppError> check_resume(const RunRecord& record, const plastic_model& model,
                              const std::filesystem::path& dir, TrainRequest& request);

/// Every option recorded in run.json with its value in `request`, by flag
/// ("--batch", 32), in the record's order: one table for the record, the
/// resume check and the ranks' agreement (rank_agreement.h).
std::vector<std::pair<std::string, nlohmann::json>>
recorded_option_values(const TrainRequest& request);

/// "--set classes=4 --set tau=0.5" (empty when there are none).
std::string describe_sets(const std::map<std::string, double>& sets);

} // namespace plastic::rt
