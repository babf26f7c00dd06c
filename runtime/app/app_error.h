// Failures of a model command, with the exit code they should end the
// process with: 1 for bad input (data, parameters files, a model that does
// not fit the data), 2 for a bad command line. Messages are complete
// sentences a user can act on; the commands print them and return the code.
// A command step returns a Result<V, AppError> or a Status<AppError>
// (runtime/support/result.h).
#pragma once

#include <string>

#include "runtime/support/result.h"

namespace plastic::rt {

/// The exit codes of `plastic` and of every model binary, distinct per
/// failure kind so scripts can tell them apart.
enum ExitCode { kOk = 0, kInputError = 1, kUsageError = 2, kInternalError = 3 };

/// A failed command step: its message and the exit code to end with.
struct AppError {
  int exit_code = 1;
  std::string message;
};

} // namespace plastic::rt
