// Where a command waits for its model's kernels. The driver compiles them on
// other threads while the command reads and prepares its data (compiler/
// backend/background_model.h) and installs a hook that waits for them and
// says what they cost; each command calls kernels_ready() after its data
// are ready and before its first kernel call, so a failed compilation ends
// the command with an error. A model binary, whose kernels are linked in,
// installs none and waits for nothing.
#pragma once

#include <functional>

#include "runtime/app/app_error.h"
#include "runtime/batch/installed_hook.h"

namespace plastic::rt {

/// Waits for the kernels; an error when they could not be compiled.
using KernelsReady = std::function<Status<AppError>()>;

/// Waits for the kernels when the driver compiles them beside the command.
inline Status<AppError> kernels_ready() {
  const KernelsReady& ready = installed_hook<KernelsReady>();
  return ready ? ready() : Status<AppError>{};
}

/// Installs one until the guard dies (the previous one is restored then).
using KernelsReadyScope = HookScope<KernelsReady>;

} // namespace plastic::rt
