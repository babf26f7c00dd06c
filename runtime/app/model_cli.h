// The model subcommands — train, eval, predict and the one-step benchmark —
// registered on a CLI11 app and run on a compiled model. Written once for
// the two programs that offer them: the `plastic` driver (which compiles
// the model file first, JIT) and ahead-of-time model binaries (whose table
// is linked in). Both therefore parse the same flags into the same
// requests and call the same run_* functions: there is no second code path.
//
//   rt::ModelCli cli(app, "bench", {});      // a model binary
//   app.parse(argc, argv);
//   if (cli.parsed() != rt::ModelCommand::None) return cli.run(table, dims);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "runtime/abi.h"
#include "runtime/app/bench_app.h"
#include "runtime/app/requests.h"
#include "runtime/support/interrupt.h"

namespace plastic::rt {

/// Which model subcommand the command line chose.
enum class ModelCommand { None, Train, Eval, Predict, Bench };

class ModelCli {
public:
  /// Registers `train`, `eval`, `predict` and the benchmark (named
  /// `bench_name`: "bench-train" in the driver, "bench" in a model binary)
  /// on `app`. `extra`, when given, adds options to each of them before
  /// their own (the driver's model file and --set).
  ModelCli(CLI::App& app, const std::string& bench_name,
           const std::function<void(CLI::App&)>& extra = {});

  /// The subcommand that was parsed (None before parsing or if another was).
  ModelCommand parsed() const;
  /// The parsed subcommand's CLI11 object (null when None).
  CLI::App* parsed_app() const;

  /// What the parsed command will run with, so the caller can compile for
  /// it: the element type ("f32" | "f64", writable so a model binary can fix
  /// it to its own), the batch and the threads (0 = every core).
  std::string& dtype();
  int64_t batch() const;
  int threads() const;
  /// The parsed train / eval / predict command's options (null otherwise).
  const RunOptions* run_options() const;
  /// --gradient / --memory-budget / --memory-limit of train or bench; null for eval and predict.
  const MemoryFlags* memory() const;

  /// For `train`: from now on SIGINT / SIGTERM stop the run at its next safe
  /// point (exit 130 / 143) instead of killing the process, so a Ctrl-C while
  /// the model compiles or the data loads is honoured, not lost. Call it as
  /// soon as the command line is parsed; run() calls it too.
  void watch_interrupts();

  /// Runs the parsed command on `model`; `dims` (the model's dims by name)
  /// go into the records of a training run. Returns the exit code.
  /// `source` is the model as written, when it was compiled from a file
  /// (the driver): training records it, eval and predict compare with it.
  int run(const plastic_model& model, const nlohmann::json& dims, const ModelSource& source = {});

  /// The long names ("--seed", ...) of the options given to the parsed
  /// command: the others may come from a run folder's record.
  std::set<std::string> given() const;

  /// The run folder whose record (run_record.h) the command reuses: that of
  /// --parameters for `eval` / `predict`, --out for `train --resume`; empty
  /// for the others.
  std::string recorded_run() const;
  /// eval and predict: --parameters as given (empty for other commands).
  std::string parameters() const;

  /// Whether the parsed command was given --data (train, eval, predict).
  bool has_data() const;

private:
  TrainRequest train_;
  EvalRequest eval_;
  PredictRequest predict_;
  BenchRequest bench_;
  std::string bench_dtype_ = "f32";
  std::optional<InterruptGuard> interrupts_;
  CLI::App *train_cmd_ = nullptr, *eval_cmd_ = nullptr, *predict_cmd_ = nullptr,
           *bench_cmd_ = nullptr;
};

} // namespace plastic::rt
