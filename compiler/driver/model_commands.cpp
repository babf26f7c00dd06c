// `plastic train | eval | predict | bench-train` (see model_commands.h).
#include "compiler/driver/model_commands.h"

#include "compiler/driver/backend_choice.h"
#include "compiler/driver/run_compiled.h"
#include "runtime/app/model_cli.h"
#include "runtime/app/model_data.h"

namespace plastic::driver {

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

std::optional<int> ModelCommands::run(const CommonOptions& common) {
  rt::ModelCli& cli = *state_->cli;
  if (cli.parsed() == rt::ModelCommand::None) return std::nullopt;
  cli.watch_interrupts(); // before compiling: a Ctrl-C during start-up must not be lost
  CommonOptions with_backend = common;
  with_backend.backend = parse_backend(state_->backend);
  // `dim d from data.X` is resolved before compiling: the data are read
  // once here for their channels and classes. Data that cannot be read are
  // left to the command, which reports them as before (and, for `train
  // --force`, after clearing the old run).
  if (const rt::RunOptions* run = cli.run_options(); run && !run->data.empty()) {
    auto q = rt::data_quantities(*run);
    if (q) {
      with_backend.data_quantities = std::move(q.value());
      with_backend.data_name = run->data;
    }
  }
  return run_compiled(
      state_->file, cli.dtype(), with_backend,
      [&](const plastic_model& m, const nlohmann::json& dims) { return cli.run(m, dims); },
      cli.batch(), cli.threads());
}

} // namespace plastic::driver
