// The REPL's commands, written once: name, arguments, help, what their
// arguments complete to, and the function that runs them. `help` and tab
// completion are both generated from this table, and input that is not a
// command (a statement, `name = value`, a solver, an expression) is
// dispatched here too, so one function says what any typed line means.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/driver/repl/session.h"

namespace plastic::driver::repl {

/// What the REPL keeps besides the session: the sample expressions and
/// trajectories read, and whether the model file is watched.
struct ReplState {
  explicit ReplState(CommonOptions common) : session(std::move(common)) {}
  Session session;
  std::string split = "validation"; ///< the split `predict`, `trajectory` and expressions read
  int64_t sample = 0;               ///< the sample they read
  bool watch = false;               ///< reload the model file when it changes on disk
  /// Evaluations kept with `eval SPLIT as LABEL`, for `results`.
  struct Result {
    std::string label, split, metric_name, solver;
    double metric = 0, loss = 0;
    int64_t epochs = 0, parameters = 0;
  };
  std::vector<Result> results;
  bool quit = false;
};

/// What an argument completes to.
enum class ArgKind { None, File, Command, Stage, Split, Setting, Name, Solver, OnOff };

struct Command {
  const char* name;
  const char* args; ///< synopsis of the arguments, "" for none
  const char* help; ///< one line
  ArgKind complete; ///< what its first argument completes to
  /// Runs the command with the rest of the line; returns an exit code (0 = ok).
  int (*run)(ReplState& state, const std::string& args);
};

/// Every command, in the order `help` lists them.
const std::vector<Command>& commands();

/// Runs one entry (a command, a statement, `name = value`, a solver line or
/// an expression); returns 0 or the exit code of the error it printed.
int execute(ReplState& state, const std::string& entry);

/// Completion candidates for the word starting at `word_start` of `line`.
std::vector<std::string> complete(const ReplState& state, const std::string& line,
                                  size_t word_start);

} // namespace plastic::driver::repl
