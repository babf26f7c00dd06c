// The driver's subcommands as declarations on the command line: each adds
// its options next to the state they fill and returns how to run it, so
// that main.cpp only parses and dispatches. (train, eval, predict,
// bench-train and tune declare themselves: model_commands.h, tune/.)
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compiler/driver/commands.h"
#include "dsl/diagnostics.h"

namespace plastic::driver {

/// Options that several model-file subcommands share, parsed once into
/// CommonOptions (main.cpp).
struct SharedFlags {
  std::vector<std::string> sets; ///< --set name=value, not yet checked
  int error_limit = dsl::DiagnosticEngine::kDefaultErrorLimit; ///< --error-limit
  std::string backend = "llvm";                                ///< --backend (build, bench-kernels)
  std::optional<double> memory_limit;                          ///< --memory-limit (check)

  /// --error-limit on `cmd`.
  void add_error_limit(CLI::App* cmd);
  /// --set and --error-limit on `cmd`.
  void add_set(CLI::App* cmd);
};

/// A declared subcommand: run it when `cmd` was parsed. Its options live in
/// the closure.
struct Subcommand {
  CLI::App* cmd = nullptr;
  std::function<int(const CommonOptions&)> run;
};

/// check, emit, build, bench-kernels: compiling a model.
std::vector<Subcommand> add_compile_commands(CLI::App& app, SharedFlags& flags);
/// gradcheck, analyze stability|fixed-points|flow, repl: questions about a
/// model and the interactive session.
std::vector<Subcommand> add_inspect_commands(CLI::App& app, SharedFlags& flags);
/// lsp (the language server for editors) and completion (shell completion
/// scripts): tools around the other commands.
std::vector<Subcommand> add_tool_commands(CLI::App& app);

} // namespace plastic::driver
