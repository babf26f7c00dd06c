// What a user asks a compiled model to do: train it, evaluate it, or predict
// with it. Plain structs filled by the command line (cli_options.h) of the
// `plastic` driver and of ahead-of-time model binaries alike, so both accept
// the same flags and mean the same by them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/app/data_flags.h"

namespace plastic::rt {

/// The model as written, when the command compiled it from source (the
/// `plastic` driver; a model binary has none): the run folder keeps its text
/// and its --set values, and the model's identity (run_record.h) covers them.
struct ModelSource {
  std::string file;                   ///< the model file as given
  std::string text;                   ///< its text, written to the run folder as model.ode
  std::string canonical;              ///< the model printed back (no comments or layout)
  std::map<std::string, double> sets; ///< --set name=value
  /// The dims that size the model's first path input and its label input
  /// (`input x : path[d_in]` -> "d_in"), when a plain dim does: a mismatch
  /// with the data is then answered with the exact --set that fits it.
  std::string path_dim, classes_dim;
};

/// Options every command shares.
struct RunOptions {
  std::string data;   ///< --data: see runtime/data/open_data.h
  std::string valid;  ///< --valid: a separate validation set (then --data's own is trained on)
  uint64_t seed = 0;  ///< splits, initialisation, shuffling
  int threads = 0;    ///< tiles over threads; 0 = every core
  bool oi = false;    ///< PhysioNet: observational-intensity channels
  int64_t batch = 32; ///< samples per optimiser step / per evaluation batch
  std::string dtype = "f32";                      ///< element type of the kernels: f32 | f64
  nlohmann::json dims = nlohmann::json::object(); ///< the model's dims, for records
  DataFlags data_flags; ///< how to read a .csv or .npy folder (--target, --time, ...)
  /// --split-seed: the seed of the train / validation / test split; unset =
  /// --seed (runs made before it existed split with their --seed).
  std::optional<uint64_t> split_seed;
  double valid_fraction = 0.15; ///< --valid-fraction: of a training file held out for validation
  /// --folds K: K-fold cross-validation (cross_validation.h); `fold` is the
  /// one fold (1..K) a run trains and validates on, 0 = every fold in turn.
  int64_t folds = 0;
  int64_t fold = 0;
  /// --train-fraction: train on this stratified share of the training part
  /// (open_data.h); validation and test stay whole. 1 = all of it.
  double train_fraction = 1;
  ModelSource model; ///< the model's source (empty for a model binary)
  /// Options given on the command line by long name ("--seed", ...): the
  /// others may be taken from a run folder's record (run_record.h).
  std::set<std::string> given;

  uint64_t data_seed() const { return split_seed.value_or(seed); }
  bool was_given(const std::string& flag) const { return given.count(flag) > 0; }
};

/// --gradient, --memory-budget, --memory-limit (train and bench-train; memory_plan.h).
struct MemoryFlags {
  std::string gradient;         ///< "" = the model's; direct | checkpoint | adjoint | auto
  std::optional<double> budget; ///< bytes for `auto`; unset = half of MemAvailable
  std::optional<double> limit;  ///< refuse a step above this; unset = MemAvailable
};

struct TrainRequest {
  RunOptions run;
  MemoryFlags memory;
  int64_t epochs = 30;
  /// --until N: pause after epoch N with a checkpoint (the schedule still
  /// spans --epochs); --resume continues. 0 = train to --epochs. Not
  /// recorded: it changes when the run stops, not what it computes.
  int64_t until = 0;
  /// --curriculum LEN:EPOCHS,...: train on growing prefixes first
  /// (curriculum.h); empty = the whole series throughout.
  std::string curriculum;
  std::string optimizer = "adam"; ///< adam | adamw | sgd
  double lr = 1e-3;
  double weight_decay = -1;          ///< < 0: the optimiser's default
  double momentum = 0;               ///< sgd
  std::string schedule = "constant"; ///< constant | plateau | cosine
  double clip_norm = 0;              ///< gradient clipping by global norm; 0 = off
  /// --input-noise: std of the Gaussian noise on the training series'
  /// measured values, redrawn each epoch (input_noise.h); 0 = off.
  double input_noise = 0;
  /// --norm-penalty: λ of λ Σ ‖θ_g‖ in the training loss (norm_penalty.h);
  /// 0 = off. --norm-penalty-on: the tensors or layers it covers,
  /// comma-separated; empty = every parameter tensor.
  double norm_penalty = 0;
  std::string norm_penalty_on;
  /// Early stopping after N epochs without a better validation value; 0 =
  /// never. kDefaultPatience (< 0): kAutoPatience epochs when there is
  /// validation data and no curriculum (whose early stages are not judged
  /// on the whole series), else never — see effective_patience().
  static constexpr int kDefaultPatience = -1;
  static constexpr int kAutoPatience = 20;
  int patience = kDefaultPatience;
  /// --select: the validation value that picks the best epoch (and early
  /// stopping): auto | loss | accuracy | auroc | mse. auto: accuracy for a
  /// classifier (its ties broken by the loss), else the loss — on a few
  /// dozen validation series the loss's minimum comes epochs before the
  /// accuracy's, while the model is still far from fitted.
  std::string select = "auto";
  /// The default run folder: the scratch run a fresh `train` replaces
  /// without --force (give --out to keep runs); every other folder is kept.
  static constexpr const char* kLatestRun = "runs/latest";
  std::string out = kLatestRun; ///< run folder: checkpoints, logs, final parameters
  bool resume = false;          ///< continue from the run folder's newest checkpoint
  bool force = false;           ///< replace a run already in the folder (run_folder.h)
  bool plot = false;            ///< learning-curve PNG (gnuplot)
  bool progress = true;         ///< progress bar on stderr
  /// Every batch in RUN/steps.jsonl with initial/last.safetensors
  /// (runtime/train/step_log.h); a resumed run that logged goes on logging.
  bool log_steps = false;
};

struct EvalRequest {
  RunOptions run;
  std::string parameters;     ///< a model.safetensors or a run folder holding one
  std::string split = "test"; ///< train | validation | test | all
  /// --series-alone: each series solved in a tile of its own
  /// (BatchOptions::series_alone).
  bool series_alone = false;
};

struct PredictRequest {
  EvalRequest eval;
  std::string output; ///< CSV of predictions; "-" = stdout
};

} // namespace plastic::rt
