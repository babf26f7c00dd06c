// `plastic train | eval | predict | bench-train` (see model_commands.h).
#include "compiler/driver/model_commands.h"

#include "compiler/abi/gradient_use.h"
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/data_dims.h"
#include "compiler/driver/run_compiled.h"
#include "dsl/frontend.h"
#include "runtime/app/binding.h"
#include "runtime/app/data_flags.h"
#include "runtime/app/model_cli.h"
#include "runtime/app/model_data.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace plastic::driver {

namespace {

// The gradient kernels the parsed command will call. A resumed run may take
// its method from the run's record, and `auto` decides from the memory
// estimate of the compiled model: both keep every kernel. Empty: the model's
// own `gradient` line decides.
std::optional<abi::GradientUse> gradients_called(const rt::ModelCli& cli) {
  using G = abi::GradientUse;
  if (cli.parsed() == rt::ModelCommand::Eval || cli.parsed() == rt::ModelCommand::Predict)
    return G::None;
  const rt::MemoryFlags* memory = cli.memory();
  if (!memory || !cli.recorded_run().empty()) return G::All;
  if (memory->gradient.empty()) return std::nullopt;
  if (memory->gradient == "direct" || memory->gradient == "checkpoint") return G::Backprop;
  if (memory->gradient == "adjoint") return G::Adjoint;
  return G::All;
}

} // namespace

struct ModelCommands::State {
  std::string file;
  std::string backend = "llvm";
  std::unique_ptr<rt::ModelCli> cli;
};

ModelCommands::ModelCommands(CLI::App& app, std::vector<std::string>& sets,
                             const std::function<void(CLI::App*)>& more_options)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  // The flags are the runtime's (shared with model binaries); the driver
  // only puts the model file and --set in front.
  s.cli = std::make_unique<rt::ModelCli>(app, "bench-train", [&](CLI::App& cmd) {
    cmd.add_option("file", s.file, "Model file (*.ode)")->required();
    cmd.add_option("--set", sets, "Override a dim or const: --set d_head=32 (repeatable)");
    if (more_options) more_options(&cmd);
    add_backend_option(cmd, s.backend);
  });
}

ModelCommands::~ModelCommands() = default;

namespace {

// The binding of the run an eval, predict or train --resume reads (nullopt
// for a folder without run.json); an error is printed and its code returned
// in `code`. A --parameters that names nothing is said as such, not as a
// missing --data.
std::optional<rt::RunBinding> recorded_binding(const rt::ModelCli& cli, int& code) {
  code = kOk;
  const std::string dir = cli.recorded_run();
  if (dir.empty()) return std::nullopt;
  std::error_code ec;
  if (const std::string given = cli.parameters();
      !given.empty() && !std::filesystem::exists(given, ec)) {
    fmt::print(stderr,
               "plastic: --parameters: {} does not exist (a run folder of `plastic "
               "train`, or a model.safetensors)\n",
               given);
    code = kUsageError;
    return std::nullopt;
  }
  auto binding = rt::read_binding(dir);
  if (!binding) {
    fmt::print(stderr, "plastic: {}\n", binding.error().message);
    code = binding.error().exit_code;
    return std::nullopt;
  }
  return std::move(binding.value());
}

} // namespace

std::optional<int> ModelCommands::run(const CommonOptions& common) {
  rt::ModelCli& cli = *state_->cli;
  if (cli.parsed() == rt::ModelCommand::None) return std::nullopt;
  cli.watch_interrupts(); // before compiling: a Ctrl-C during start-up must not be lost
  CommonOptions with_backend = common;
  with_backend.backend = parse_backend(state_->backend);
  // eval, predict and train --resume compile the model as the run did: its
  // --set values and element type, unless given anew (runtime/app/run_record.h);
  // a value given anew that differs from the run's is then refused by them.
  int code = kOk;
  const std::optional<rt::RunBinding> binding = recorded_binding(cli, code);
  if (code != kOk) return code;
  const bool recorded_data = binding && !binding->record.data.empty();
  if (binding) {
    with_backend.overrides = binding->sets_with(with_backend.overrides);
    with_backend.lanes = binding->record.lanes;
    if (cli.given().count("--dtype") == 0) cli.dtype() = binding->record.dtype;
  }
  // Checked before the model is compiled: no work for a command that cannot run.
  if (!cli.has_data() && !recorded_data) {
    fmt::print(stderr, "plastic: --data is required{}\n",
               cli.parsed() == rt::ModelCommand::Train
                   ? " (or --resume of a run that records it)"
                   : " (the parameters' folder holds no run record naming the data)");
    return kUsageError;
  }
  // `dim d from data.X` is resolved before compiling: the data are read
  // once here for their channels and classes — only for a model that has
  // such a dim, since the command reads them again. Data that cannot be read
  // are left to the command, which reports them as before (and, for `train
  // --force`, after clearing the old run). Without --data, eval and predict
  // read the data the run recorded.
  const rt::RunOptions* run = cli.run_options();
  if ((!run || run->data.empty()) && recorded_data) run = &binding->record.train.run;
  if (run && !run->data.empty() && dsl::declares_data_dims(state_->file)) {
    auto q = data_quantities_for(binding, cli.recorded_run(), *run);
    if (q) {
      with_backend.data_quantities = std::move(q->first);
      with_backend.data_name = std::move(q->second);
    }
  }
  if (const rt::MemoryFlags* memory = cli.memory()) {
    with_backend.memory_limit = memory->limit;
    with_backend.training_step = true;
  }
  with_backend.gradients = gradients_called(cli);
  return run_compiled(
      state_->file, cli.dtype(), with_backend,
      [&](const plastic_model& m, const nlohmann::json& dims, const rt::ModelSource& source) {
        return cli.run(m, dims, source);
      },
      cli.batch(), cli.threads());
}

} // namespace plastic::driver
