// `plastic repl [model.ode] [--data SPEC] [--script FILE]`: an interactive
// session over one model — load it, change a dim, the solver or a statement,
// recompile, train a few steps, look, change again — or the same commands
// read from a script, stopping at the first error (for CI and notebooks).
#pragma once

#include <string>

#include "compiler/driver/commands.h"

namespace plastic::driver {

struct ReplRequest {
  std::string file;   ///< a model to load first (may be empty)
  std::string data;   ///< a --data spec to use (may be empty)
  std::string script; ///< run this file's commands instead of reading a terminal ("-" = stdin)
  std::string dtype = "f32";
};

/// Runs the session; returns the exit code (0, or the first error's in a script).
int run_repl(const ReplRequest& request, const CommonOptions& common);

} // namespace plastic::driver
