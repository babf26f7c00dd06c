// A model's data: the --data argument opened for a compiled model (the time
// channel added when its path wants one) and every split prepared for its
// kernels (control paths, log-signatures, targets — computed once).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/abi.h"
#include "runtime/app/app_error.h"
#include "runtime/app/preprocessing.h"
#include "runtime/app/requests.h"
#include "runtime/batch/predict.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/data/open_data.h"

namespace plastic::rt {

struct ModelData {
  DataSplits splits;
  std::optional<PreparedData> train, validation, test; ///< absent for an empty split
  /// New series for a trained model (open_new_data): read whole, not split;
  /// `train` holds a single file's series or a UEA folder's TRAIN file.
  bool whole = false;

  /// A split by name ("train", "validation", "test"): its samples and their
  /// prepared form (null when the split is empty).
  struct Split {
    const Dataset& data;
    const PreparedData* prepared;
  };
  Split split(const std::string& name) const;

  /// The parts to evaluate or predict, named: the split asked for ("all":
  /// every non-empty one) of the run's data; every part of new data ("data"
  /// for a single file, "train" and "test" for a UEA folder's two files),
  /// or the one `split` names when it was given.
  struct Part {
    std::string name;
    Split split;
  };
  std::vector<Part> parts(const std::string& split, bool split_given) const;
};

/// How open_model_data prepares each split (targets required, run.threads).
PrepareOptions split_prepare_options(const RunOptions& run);

/// Opens run.data for `model` and prepares its non-empty splits.
Result<ModelData, AppError> open_model_data(const plastic_model& model, const RunOptions& run);

/// Opens series given to a trained run's `eval` or `predict` that are not
/// its data: read as the run read its data (its flags and --oi), whole —
/// never split — and prepared with the run's recorded channels, classes
/// and statistics (prepare_as_trained), never re-fitted, so a series
/// predicted alone gets the numbers it gets inside its file.
Result<ModelData, AppError> open_new_data(const plastic_model& model, const RunOptions& run,
                                          const Preprocessing& recorded);

/// "test        accuracy 0.9696   loss 0.0912   (428 samples)": one line
/// per evaluated split, the same in train, eval and model binaries.
void print_evaluation(const std::string& split, const Evaluation& e);

/// The exact --set values that fit `model` to `data` when a dim named in
/// `source` (path_dim, classes_dim) disagrees with it: "--set classes=4 (the
/// data's classes)", the time channel said; empty when none applies.
std::string size_advice(const plastic_model& model, const ModelSource& source, const Dataset& data);

/// What `dim d from data.X` can take from run.data: "channels" (as read,
/// before a time channel) and, for class-labelled data, "classes".
Result<std::map<std::string, int64_t>, AppError> data_quantities(const RunOptions& run);

/// Channels the model's path input expects (0 when it reads no path).
int64_t model_path_channels(const plastic_model& model);

/// How many samples `run`'s data give to train and validate on (all but the
/// test part), and whether the data fix the validation part themselves,
/// read without a model: what `plastic tune` decides between k-fold
/// cross-validation and one validation split by.
struct TrainingPool {
  int64_t samples = 0;
  bool given_validation = false;
};
Result<TrainingPool, AppError> training_pool(const RunOptions& run);
/// plastic_path_option bits of the model's path input (0 when it reads none).
int32_t model_path_options(const plastic_model& model);

} // namespace plastic::rt
