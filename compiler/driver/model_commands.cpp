// `plastic train | eval | predict | bench-train` (see model_commands.h).
#include "compiler/driver/model_commands.h"

#include "compiler/driver/run_compiled.h"
#include "runtime/app/bench_app.h"
#include "runtime/app/cli_options.h"
#include "runtime/app/eval_app.h"
#include "runtime/app/train_app.h"

namespace plastic::driver {

struct ModelCommands::State {
  std::string file;
  rt::TrainRequest train;
  rt::EvalRequest eval;
  rt::PredictRequest predict;
  rt::BenchRequest bench;
  std::string bench_dtype = "f32";
  CLI::App *train_cmd = nullptr, *eval_cmd = nullptr, *predict_cmd = nullptr, *bench_cmd = nullptr;
};

ModelCommands::ModelCommands(CLI::App& app, std::vector<std::string>& sets)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  auto common = [&](CLI::App* cmd) {
    cmd->add_option("file", s.file, "Model file (*.ode)")->required();
    cmd->add_option("--set", sets, "Override a dim or const: --set d_head=32 (repeatable)");
  };
  s.train_cmd = app.add_subcommand("train", "Train a model on data (JIT-compiled)");
  common(s.train_cmd);
  rt::add_train_options(*s.train_cmd, s.train);

  s.eval_cmd = app.add_subcommand("eval", "Evaluate trained parameters on a data split");
  common(s.eval_cmd);
  rt::add_eval_options(*s.eval_cmd, s.eval);

  s.predict_cmd = app.add_subcommand("predict", "Write a model's outputs on a data split as CSV");
  common(s.predict_cmd);
  rt::add_predict_options(*s.predict_cmd, s.predict);

  s.bench_cmd = app.add_subcommand(
      "bench-train", "Time one training step on synthetic data of the model's shapes");
  common(s.bench_cmd);
  s.bench_cmd->add_option("--batch", s.bench.batch, "Batch size (default 128)")
      ->check(CLI::PositiveNumber);
  s.bench_cmd->add_option("--threads", s.bench.threads, "Threads (default: every core)");
  s.bench_cmd->add_option("--steps", s.bench.steps, "Timed steps (default 5)")
      ->check(CLI::PositiveNumber);
  s.bench_cmd->add_option("--length", s.bench.length, "Observations per series (default 100)");
  s.bench_cmd->add_option("--dt", s.bench.dt, "Time between observations (default 1)")
      ->check(CLI::PositiveNumber);
  s.bench_cmd
      ->add_option("--gradient", s.bench.gradient,
                   "direct | checkpoint | adjoint (default: the model's)")
      ->check(CLI::IsMember({"direct", "checkpoint", "adjoint"}));
  s.bench_cmd->add_option("--dtype", s.bench_dtype, "f32 | f64 (default f32)")
      ->check(CLI::IsMember({"f32", "f64"}));
  s.bench_cmd->add_option("--seed", s.bench.seed, "Seed (default 0)");
  s.bench_cmd->add_flag("--json", s.bench.json, "One JSON line");
}

ModelCommands::~ModelCommands() = default;

std::optional<int> ModelCommands::run(const CommonOptions& common) {
  State& s = *state_;
  if (s.train_cmd->parsed())
    return run_compiled(
        s.file, s.train.run.dtype, common,
        [&](const plastic_model& m, const nlohmann::json& dims) {
          s.train.run.dims = dims;
          return rt::run_train(m, s.train);
        },
        s.train.run.batch, s.train.run.threads);
  if (s.eval_cmd->parsed())
    return run_compiled(
        s.file, s.eval.run.dtype, common,
        [&](const plastic_model& m, const nlohmann::json&) { return rt::run_eval(m, s.eval); },
        s.eval.run.batch, s.eval.run.threads);
  if (s.predict_cmd->parsed())
    return run_compiled(
        s.file, s.predict.eval.run.dtype, common,
        [&](const plastic_model& m, const nlohmann::json&) {
          return rt::run_predict(m, s.predict);
        },
        s.predict.eval.run.batch, s.predict.eval.run.threads);
  if (s.bench_cmd->parsed())
    return run_compiled(
        s.file, s.bench_dtype, common,
        [&](const plastic_model& m, const nlohmann::json&) {
          return rt::run_bench_train(m, s.bench);
        },
        s.bench.batch, s.bench.threads);
  return std::nullopt;
}

} // namespace plastic::driver
