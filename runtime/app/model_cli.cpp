// The model subcommands on a command line (see model_cli.h).
#include "runtime/app/model_cli.h"

#include "runtime/app/cli_options.h"
#include "runtime/app/eval_app.h"
#include "runtime/app/option_checks.h"
#include "runtime/app/run_record.h"
#include "runtime/app/train_app.h"

#include <limits>

namespace plastic::rt {

ModelCli::ModelCli(CLI::App& app, const std::string& bench_name,
                   const std::function<void(CLI::App&)>& extra) {
  auto add = [&](const char* name, const char* help) {
    CLI::App* cmd = app.add_subcommand(name, help);
    if (extra) extra(*cmd);
    return cmd;
  };
  train_cmd_ = add("train", "Train the model on data");
  add_train_options(*train_cmd_, train_);
  train_cmd_->footer(
      "\nTraining on several machines: mpirun -np 4 --hostfile hosts <this command> ... (or srun "
      "under Slurm), --threads for the cores of each rank; --batch is the global batch, and f64 "
      "results are bitwise those of one process (docs/mpi.md).");
  eval_cmd_ = add("eval", "Evaluate trained parameters on a data split");
  add_eval_options(*eval_cmd_, eval_);
  predict_cmd_ = add("predict", "Write the model's outputs on a data split as CSV");
  add_predict_options(*predict_cmd_, predict_);

  bench_cmd_ =
      add(bench_name.c_str(), "Time one training step on synthetic data of the model's shapes");
  CLI::App& b = *bench_cmd_;
  b.add_option("--batch", bench_.batch, "Batch size (default 128)")
      ->check(integer_in(1, 1LL << 30));
  b.add_option("--threads", bench_.threads, "Threads (default: every core)")
      ->check(integer_in(0, 4096));
  b.add_option("--steps", bench_.steps, "Timed steps (default 5)")->check(integer_in(1, 1'000'000));
  b.add_option("--length", bench_.length, "Observations per series (default 100)")
      ->check(integer_in(2, 1'000'000'000));
  b.add_option("--dt", bench_.dt, "Time between observations (default 1)")
      ->check(positive_finite());
  add_memory_flags(b, bench_.memory);
  add_dtype_option(b, bench_dtype_, "the kernels (default f32)");
  b.add_option("--seed", bench_.seed, "Seed (default 0)")
      ->check(integer_in(0, std::numeric_limits<long long>::max()));
  b.add_flag("--json", bench_.json, "One JSON line");
}

ModelCommand ModelCli::parsed() const {
  if (train_cmd_->parsed()) return ModelCommand::Train;
  if (eval_cmd_->parsed()) return ModelCommand::Eval;
  if (predict_cmd_->parsed()) return ModelCommand::Predict;
  if (bench_cmd_->parsed()) return ModelCommand::Bench;
  return ModelCommand::None;
}

CLI::App* ModelCli::parsed_app() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return train_cmd_;
  case ModelCommand::Eval:
    return eval_cmd_;
  case ModelCommand::Predict:
    return predict_cmd_;
  case ModelCommand::Bench:
    return bench_cmd_;
  case ModelCommand::None:
    break;
  }
  return nullptr;
}

std::string& ModelCli::dtype() {
  switch (parsed()) {
  case ModelCommand::Train:
    return train_.run.dtype;
  case ModelCommand::Eval:
    return eval_.run.dtype;
  case ModelCommand::Predict:
    return predict_.eval.run.dtype;
  default:
    return bench_dtype_;
  }
}

int64_t ModelCli::batch() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return train_.run.batch;
  case ModelCommand::Eval:
    return eval_.run.batch;
  case ModelCommand::Predict:
    return predict_.eval.run.batch;
  default:
    return bench_.batch;
  }
}

const RunOptions* ModelCli::run_options() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return &train_.run;
  case ModelCommand::Eval:
    return &eval_.run;
  case ModelCommand::Predict:
    return &predict_.eval.run;
  default:
    return nullptr;
  }
}

const MemoryFlags* ModelCli::memory() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return &train_.memory;
  case ModelCommand::Bench:
    return &bench_.memory;
  default:
    return nullptr;
  }
}

int ModelCli::threads() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return train_.run.threads;
  case ModelCommand::Eval:
    return eval_.run.threads;
  case ModelCommand::Predict:
    return predict_.eval.run.threads;
  default:
    return bench_.threads;
  }
}

void ModelCli::watch_interrupts() {
  if (parsed() == ModelCommand::Train && !interrupts_) interrupts_.emplace(!train_.progress);
}

std::string ModelCli::recorded_run() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return train_.resume ? train_.out : std::string();
  case ModelCommand::Eval:
    return run_folder_of(eval_.parameters).string();
  case ModelCommand::Predict:
    return run_folder_of(predict_.eval.parameters).string();
  default:
    return {};
  }
}

std::string ModelCli::parameters() const {
  switch (parsed()) {
  case ModelCommand::Eval:
    return eval_.parameters;
  case ModelCommand::Predict:
    return predict_.eval.parameters;
  default:
    return {};
  }
}

bool ModelCli::has_data() const {
  switch (parsed()) {
  case ModelCommand::Train:
    return !train_.run.data.empty();
  case ModelCommand::Eval:
    return !eval_.run.data.empty();
  case ModelCommand::Predict:
    return !predict_.eval.run.data.empty();
  default:
    return true;
  }
}

std::set<std::string> ModelCli::given() const {
  std::set<std::string> names;
  if (const CLI::App* cmd = parsed_app())
    for (const CLI::Option* o : cmd->get_options())
      if (o->count() > 0)
        for (const std::string& n : o->get_lnames())
          names.insert("--" + n);
  return names;
}

int ModelCli::run(const plastic_model& model, const nlohmann::json& dims,
                  const ModelSource& source) {
  watch_interrupts();
  switch (parsed()) {
  case ModelCommand::Train:
    train_.run.dims = dims;
    train_.run.model = source;
    train_.run.given = given();
    return run_train(model, train_);
  case ModelCommand::Eval:
    eval_.run.model = source;
    eval_.run.given = given();
    return run_eval(model, eval_);
  case ModelCommand::Predict:
    predict_.eval.run.model = source;
    predict_.eval.run.given = given();
    return run_predict(model, predict_);
  case ModelCommand::Bench:
    return run_bench_train(model, bench_);
  case ModelCommand::None:
    break;
  }
  return kUsageError;
}

} // namespace plastic::rt
