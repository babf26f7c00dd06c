// How `train` turned a data set into what the model read — which channels
// it had, whether a time channel was prepended, the normalisation fitted on
// the training split, the class names — recorded in the run folder as
// data.json, so that a program predicting on new series later (a model
// embedded with runtime/embed) prepares them exactly as training did,
// without the training data at hand.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/app/app_error.h"
#include "runtime/app/data_flags.h"
#include "runtime/app/requests.h"
#include "runtime/data/dataset.h"
#include "runtime/data/normalise.h"
#include "runtime/data/open_data.h"

namespace plastic::rt {

/// The data preparation of one training run.
struct Preprocessing {
  int64_t raw_channels = 0;  ///< channels of the data as read
  bool time_channel = false; ///< a time channel was prepended (add_time_channel)
  bool intensity = false;    ///< observational-intensity channels (--oi; not replayable here)
  std::vector<std::string> channels;    ///< names of the channels the model read
  std::vector<std::string> classes;     ///< class names, index = label (classification data)
  std::optional<Normaliser> normaliser; ///< absent when the data was not normalised
  /// How a .csv or .npy folder was read (--target, --time, ...), so that
  /// eval, predict and --resume read it the same way unasked.
  DataFlags data_flags;
};

/// What open_data did to `splits` (read from their channels and normaliser)
/// under the run's --oi and data flags.
Preprocessing preprocessing_of(const DataSplits& splits, const RunOptions& run);

/// Writes `p` as `dir`/data.json (atomically).
Status<AppError> write_preprocessing(const std::filesystem::path& dir, const Preprocessing& p);

/// Reads `dir`/data.json; nullopt when the folder has none (a run written
/// before the record existed, or parameters copied alone).
Result<std::optional<Preprocessing>, AppError> read_preprocessing(const std::filesystem::path& dir);

/// Prepares raw series as training did: checks the channel count, prepends
/// the time channel, normalises with the training statistics.
Status<AppError> apply_preprocessing(const Preprocessing& p, Dataset& data);

/// Prepares series read from a file (`eval`/`predict --data NEW`) as
/// training did: the reader built any intensity channels as it did for the
/// run (so `--oi` runs replay too); the channels must be the ones training
/// read — by name, reordered when only their order differs; class labels
/// are renumbered by the run's class names (a file holding one class of
/// nine numbers it 0); then the time channel and the recorded statistics
/// are applied, never re-fitted. `source` names the data in errors.
Status<AppError> prepare_as_trained(const Preprocessing& p, Dataset& data,
                                    const std::string& source);

/// What `dim d from data.X` resolved to in the run: "channels" (as read,
/// before the time channel) and, for class-labelled data, "classes" — so
/// that eval and predict of new series compile the model the run trained,
/// whatever the new series hold.
std::map<std::string, int64_t> recorded_data_quantities(const Preprocessing& p);

} // namespace plastic::rt
