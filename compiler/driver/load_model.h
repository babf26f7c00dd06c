// The driver's way into the compiler: check, lower and derive a model file's
// functions with the command line's options, and turn a failure into the
// driver's exit code. Shared by every subcommand that compiles a model.
#pragma once

#include "compiler/driver/commands.h"
#include "compiler/model/model_functions.h"

#include <optional>
#include <string>

namespace plastic::driver {

/// build_model_functions with `common`'s overrides and colours; on failure
/// returns nullopt with kInputError or kUsageError in `code`.
std::optional<model::ModelFunctions>
load_model(const std::string& file, const CommonOptions& common, int& code,
           std::function<void(std::string_view, const ir::Function&)> after_pass = {});

} // namespace plastic::driver
