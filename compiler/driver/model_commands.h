// The subcommands that compile a model and run it: `train`, `eval`,
// `predict` and `bench-train`. Their flags come from runtime/app (shared
// with ahead-of-time model binaries); this file only adds the model file,
// --set, and the compilation in front.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compiler/driver/commands.h"

namespace plastic::driver {

class ModelCommands {
public:
  /// Registers the subcommands on `app`; `sets` receives their --set values.
  /// `more_options`, when given, adds the driver's other model-file options
  /// (--error-limit) to each subcommand.
  ModelCommands(CLI::App& app, std::vector<std::string>& sets,
                const std::function<void(CLI::App*)>& more_options = {});
  ~ModelCommands();
  /// The exit code of the parsed subcommand, or nullopt if none of them was parsed.
  std::optional<int> run(const CommonOptions& common);

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace plastic::driver
