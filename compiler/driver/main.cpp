// `plastic`: the command-line driver.
//
// Parses the command line with CLI11 and dispatches to one subcommand
// (commands.h). Every exception that escapes a subcommand is a bug and is
// reported as one, with its own exit code.
#include "compiler/driver/backend_choice.h"
#include "compiler/driver/commands.h"
#include "compiler/driver/model_commands.h"
#include "compiler/driver/subcommands.h"
#include "compiler/driver/tune/tune_command.h"
#include "runtime/app/allocator.h"
#include "runtime/app/parse_errors.h"
#include "runtime/app/standard_output.h"
#include "runtime/distributed/communicator.h"
#include "runtime/gradients/memory_estimate.h"
#include "runtime/support/internal_error.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>

using namespace plastic::driver;

static bool parse_overrides(const std::vector<std::string>& sets, CommonOptions& common) {
  for (const std::string& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      std::cerr << fmt::format("plastic: --set expects name=value, got '{}'\n", s);
      return false;
    }
    std::string name = s.substr(0, eq), value = s.substr(eq + 1);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(v)) {
      std::cerr << fmt::format("plastic: --set {}: '{}' is not a finite number\n", name, value);
      return false;
    }
    // A second value for one name is refused, as a repeated --batch is:
    // taking the last silently hides a typo in a long command line.
    if (auto [it, inserted] = common.overrides.emplace(name, v); !inserted) {
      std::cerr << fmt::format("plastic: --set {} given twice ({} and {}); give it once\n", name,
                               it->second, v);
      return false;
    }
  }
  return true;
}

static int run(int argc, char** argv) {
  // Line-buffered even into a file or a pipe: a long training run piped
  // through tee shows each epoch as it ends.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  plastic::rt::keep_freed_memory();
  CLI::App app{"Plastic: a compiler for neural differential equations whose vector fields are "
               "learning rules.\n"
               "Exit codes: 0 ok, 1 errors in the input, 2 usage error, 3 internal error (a bug)."};
  app.set_version_flag("--version", std::string("plastic ") + PLASTIC_VERSION);
  app.require_subcommand(1);

  SharedFlags flags;
  // Declared in the order `plastic --help` lists them.
  std::vector<Subcommand> commands = add_compile_commands(app, flags);
  ModelCommands model_commands(app, flags.sets,
                               [&flags](CLI::App* cmd) { flags.add_error_limit(cmd); });
  TuneCommand tune(app, [&flags](CLI::App* cmd) { flags.add_set(cmd); });
  for (Subcommand& c : add_inspect_commands(app, flags))
    commands.push_back(std::move(c));
  for (Subcommand& c : add_tool_commands(app))
    commands.push_back(std::move(c));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return plastic::rt::report_parse_error(app, e, "plastic");
  }

  CommonOptions common;
  common.color = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  common.error_limit = flags.error_limit;
  if (!parse_overrides(flags.sets, common)) return kUsageError;
  common.backend = parse_backend(flags.backend);
  common.memory_limit = flags.memory_limit;

  try {
    for (const Subcommand& c : commands)
      if (c.cmd->parsed()) return c.run(common);
    if (auto code = model_commands.run(common)) return *code;
    if (auto code = tune.run(common)) return *code;
  } catch (const plastic::InternalError& e) {
    std::cerr << "plastic: " << e.what() << "\n";
    return kInternalError;
  } catch (const std::exception& e) {
    if (auto code = plastic::rt::output_failure_code(e, "plastic")) return *code;
    // Any other exception escaping a command is a bug too: commands report
    // the user's errors themselves and return their exit code.
    std::cerr << "plastic: " << plastic::InternalError(e.what()).what() << "\n";
    return kInternalError;
  }
  return kUsageError;
}

int main(int argc, char** argv) {
  // Under mpirun: one rank of a data-parallel job (runtime/distributed).
  if (std::string refused = plastic::rt::init_distributed(argc, argv); !refused.empty()) {
    std::cerr << "plastic: " << refused << "\n";
    return kUsageError;
  }
  try {
    return plastic::rt::finish_distributed(
        plastic::rt::finish_standard_output(run(argc, argv), "plastic"));
  } catch (const std::exception& e) {
    // Setting up the command line failed (run catches what commands throw).
    std::cerr << "plastic: " << plastic::InternalError(e.what()).what() << "\n";
    return kInternalError;
  }
}
