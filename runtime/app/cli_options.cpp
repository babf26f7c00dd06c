// Command-line flags of the model commands (see cli_options.h). Every value
// is checked as it is parsed (option_checks.h), so a bad one is a usage
// error (exit 2) before any data is read or kernel compiled.
#include "runtime/app/cli_options.h"

#include <fmt/format.h>

#include "runtime/app/curriculum.h"
#include "runtime/app/option_checks.h"
#include "runtime/gradients/memory_estimate.h"

#include <limits>

namespace plastic::rt {

namespace {
// Bounds that no real run reaches but that keep sizes and counts far from
// overflow.
constexpr long long kMaxSeed = std::numeric_limits<long long>::max();
constexpr long long kMaxThreads = 4096;
constexpr long long kMaxBatch = 1LL << 30;
constexpr long long kMaxEpochs = 1'000'000'000;
constexpr long long kMaxFolds = 1000;
} // namespace

void add_run_options(CLI::App& cmd, RunOptions& run) {
  cmd.add_option("--data", run.data,
                 "Data: a UEA folder or .ts file, a PhysioNet folder, a folder of .npy, a .csv, "
                 "or synthetic:flipflop[:BITS], synthetic:flipflop-fixed[:BITS] (eval, predict, "
                 "train --resume: the run's)")
      ->check(non_empty());
  cmd.add_option(
         "--valid", run.valid,
         "A separate validation set (same formats as --data); --data's own validation part is "
         "then trained on")
      ->check(non_empty());
  cmd.add_option("--seed", run.seed,
                 "Seed of initialisation and shuffling, and of the split "
                 "unless --split-seed is given (default 0)")
      ->check(integer_in(0, kMaxSeed));
  cmd.add_option_function<uint64_t>(
         "--split-seed", [&run](const uint64_t& seed) { run.split_seed = seed; },
         "Seed of the train / validation / test split (default: --seed)")
      ->check(integer_in(0, kMaxSeed));
  cmd.add_option("--valid-fraction", run.valid_fraction,
                 "Fraction of the training samples held out for validation (default 0.15)")
      ->check(validation_fraction());
  cmd.add_option("--train-fraction", run.train_fraction,
                 "Train on this stratified share of the training samples, drawn with the split "
                 "seed; validation and test stay whole (a learning curve; default 1)")
      ->check(share_fraction());
  cmd.add_option("--threads", run.threads, "Threads (default: every core)")
      ->check(integer_in(0, kMaxThreads));
  cmd.add_option("--batch", run.batch, "Batch size (default 32)")->check(integer_in(1, kMaxBatch));
  add_dtype_option(cmd, run.dtype, "the kernels (default f32; eval and predict: the run's)");
  cmd.add_flag("--oi", run.oi, "PhysioNet: add observational-intensity channels (the OI setting)");
  add_data_flags(cmd, run.data_flags);
}

// ---------------------------------------------------------------------------
// Reading a .csv file or a folder of .npy series. Kept as text (data_flags.h):
// `train` records them in the run folder, and eval, predict and --resume
// read them from there.

CLI::Option* add_dtype_option(CLI::App& cmd, std::string& dtype, const std::string& what) {
  return cmd.add_option("--dtype", dtype, "Element type of " + what + ": f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}));
}

void add_data_flags(CLI::App& cmd, DataFlags& f, const char* target_flag) {
  const char* group = "Columns of a .csv / .npy folder (recorded in the run folder)";
  cmd.add_option(target_flag, f.target,
                 "Regression target per step: comma-separated columns (.npy: dim_K), or 'next' "
                 "(each step predicts the next observation)")
      ->group(group);
  cmd.add_option("--label", f.label, "Class label column (one label per series)")->group(group);
  cmd.add_option("--time", f.time,
                 "Time column (numbers or YYYY-MM-DD HH:MM:SS), or DATE,CLOCK columns "
                 "(10/03/2004 and 18:00:00; hours since 1970); .npy: the channel dim_K")
      ->group(group);
  cmd.add_option("--date-order", f.date_order, "Order of a date column: dmy (default) | mdy | ymd")
      ->group(group);
  cmd.add_option("--channels", f.channels,
                 "Channel columns, in order (default: every other column)")
      ->group(group);
  cmd.add_option("--id", f.id, "Series-id column (default: the file is one series)")->group(group);
  cmd.add_option("--static", f.statics,
                 "Columns whose value at a sample's first row is a static feature")
      ->group(group);
  cmd.add_option("--window", f.window,
                 "Cut each series into windows of N observations (a single long recording, "
                 "rollouts); the split keeps each series' windows in one part (when there are "
                 "enough series), so none is trained and tested on")
      ->group(group);
  cmd.add_option("--period", f.period, "Time between rows when there is no --time (default 1)")
      ->group(group);
  cmd.add_option("--sep", f.sep, "CSV separator: one character or 'tab' (default ',')")
      ->group(group);
  cmd.add_option("--decimal", f.decimal,
                 "Decimal point: '.' (default) or ',' (then the separator defaults to ';')")
      ->group(group);
  cmd.add_option("--missing", f.missing, "A number meaning 'missing' (e.g. -200)")->group(group);
}

void add_memory_flags(CLI::App& cmd, MemoryFlags& f) {
  cmd.add_option("--gradient", f.gradient,
                 "direct | checkpoint | adjoint | auto: chosen from --memory-budget (default: the "
                 "model's gradient line)")
      ->check(CLI::IsMember({"direct", "checkpoint", "adjoint", "auto"}));
  add_size_option(cmd, "--memory-budget", f.budget,
                  "--gradient auto: memory for the gradient, e.g. 512MB (default: half of the "
                  "available memory)");
  add_size_option(cmd, "--memory-limit", f.limit,
                  "Refuse a training step estimated above this, e.g. 4GB (default: the available "
                  "memory)");
}

CLI::Option* add_size_option(CLI::App& cmd, const std::string& flag, std::optional<double>& bytes,
                             const std::string& help) {
  return cmd.add_option_function<std::string>(
      flag,
      [&bytes, flag](const std::string& text) {
        std::optional<double> parsed = parse_byte_size(text);
        if (!parsed)
          throw CLI::ValidationError(
              fmt::format("{} {}: expected a size such as 512MB or 2GB", flag, text));
        bytes = parsed;
      },
      help);
}

void add_train_options(CLI::App& cmd, TrainRequest& r) {
  add_run_options(cmd, r.run);
  add_memory_flags(cmd, r.memory);
  cmd.add_option("--epochs", r.epochs, "Epochs (default 30)")->check(integer_in(1, kMaxEpochs));
  cmd.add_option("--until", r.until,
                 "Pause after epoch N of --epochs with a checkpoint (the schedule still spans "
                 "--epochs); continue with --resume")
      ->check(integer_in(1, kMaxEpochs));
  cmd.add_option("--curriculum", r.curriculum,
                 "LEN:EPOCHS,...: train on each series' first LEN observations for EPOCHS "
                 "epochs, then the next stage; the whole series after the last (e.g. "
                 "14:100,28:100)")
      ->check(
          [](const std::string& text) {
            auto stages = parse_curriculum(text);
            return stages ? std::string() : "--curriculum " + text + ": " + stages.error();
          },
          "LEN:EPOCHS,...");
  cmd.add_option("--optimizer", r.optimizer, "adam | adamw | sgd (default adam)")
      ->check(CLI::IsMember({"adam", "adamw", "sgd"}));
  cmd.add_option("--lr", r.lr, "Learning rate (default 1e-3)")->check(positive_finite());
  cmd.add_option("--weight-decay", r.weight_decay, "Weight decay (default: the optimiser's)")
      ->check(non_negative_finite());
  cmd.add_option("--momentum", r.momentum, "SGD momentum (default 0)")
      ->check(non_negative_finite());
  cmd.add_option("--schedule", r.schedule,
                 "constant | plateau (x0.1 after 15 epochs without improvement) | cosine")
      ->check(CLI::IsMember({"constant", "plateau", "cosine"}));
  cmd.add_option("--clip", r.clip_norm, "Clip the gradient's global norm (default off)")
      ->check(non_negative_finite());
  cmd.add_option("--input-noise", r.input_noise,
                 "Regularise: train each epoch on the training series with N(0, SIGMA^2) "
                 "noise on their measured values, in the units the model sees (default 0)")
      ->check(non_negative_finite());
  cmd.add_option("--norm-penalty", r.norm_penalty,
                 "Regularise: add LAMBDA times the sum of the parameter tensors' Euclidean "
                 "norms to the training loss (Kidger et al.'s 0.03; default 0)")
      ->check(non_negative_finite());
  cmd.add_option("--norm-penalty-on", r.norm_penalty_on,
                 "The parameters --norm-penalty covers: names or layer prefixes, "
                 "comma-separated (default every parameter)")
      ->check(non_empty());
  cmd.add_option(
         "--patience", r.patience,
         "Stop after N epochs without a better validation value, keeping the best; 0 = never "
         "(default 20 with validation data, never with --curriculum or without validation)")
      ->check(integer_in(0, kMaxEpochs));
  cmd.add_option("--out", r.out, "Run folder (default runs/latest)")->check(non_empty());
  CLI::Option* resume =
      cmd.add_flag("--resume", r.resume, "Continue from the run folder's newest checkpoint");
  cmd.add_flag("--force", r.force, "Replace the run the folder holds (its files are removed)")
      ->excludes(resume);
  cmd.add_flag("--plot", r.plot, "Write learning_curve.png with gnuplot");
  cmd.add_flag("--log-steps", r.log_steps,
               "Log every batch (samples, loss, learning rate, gradient norm) in "
               "OUT/steps.jsonl, with the parameters before the first and after the last step "
               "(OUT/initial.safetensors, OUT/last.safetensors), to compare with a reference");
  CLI::Option* folds =
      cmd.add_option("--folds", r.run.folds,
                     "K-fold cross-validation: train K models, each validated on one fold of "
                     "the training data, in OUT/fold-1 ... OUT/fold-K; mean and std in "
                     "OUT/folds.json")
          ->check(integer_in(2, kMaxFolds));
  cmd.add_option("--fold", r.run.fold, "With --folds K: train only fold I (1..K) in --out")
      ->check(integer_in(1, kMaxFolds))
      ->needs(folds);
  cmd.add_option("--select", r.select,
                 "Validation value that picks the best epoch and stops early: auto (default: "
                 "accuracy for classification, ties broken by the loss; the loss otherwise), "
                 "loss, or the task's metric: accuracy, auroc (binary), mse (regression); a "
                 "binary task also accuracy, the logit's sign against the label")
      ->check(CLI::IsMember({"auto", "loss", "accuracy", "auroc", "mse"}));
  // A flag that turns a default off: the help shows no "{false}" default.
  cmd.add_flag_callback("--no-progress", [&r] { r.progress = false; }, "No progress bar");
}

void add_eval_options(CLI::App& cmd, EvalRequest& r) {
  add_run_options(cmd, r.run);
  cmd.add_option("--parameters", r.parameters, "model.safetensors, or the run folder holding it")
      ->required()
      ->check(non_empty());
  cmd.add_option("--split", r.split, "train | validation | test | all (default test)")
      ->check(CLI::IsMember({"train", "validation", "test", "all"}));
  cmd.add_flag("--series-alone", r.series_alone,
               "Solve each series in a tile of its own: an adaptive solver's steps then depend "
               "on that series alone, so it gets the same outputs in any file (up to the "
               "model's lanes times the work)");
}

void add_predict_options(CLI::App& cmd, PredictRequest& r) {
  add_eval_options(cmd, r.eval);
  cmd.add_option("--output", r.output, "CSV file of predictions (default: standard output)")
      ->check(non_empty());
}

} // namespace plastic::rt
