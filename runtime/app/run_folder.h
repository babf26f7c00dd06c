// Taking a run folder for `train`: lock it for the run's lifetime
// (runtime/io/run_lock.h), and never let a new run mix with an old one.
//
// A new run (no --resume) in a folder that already holds a run is refused
// unless --force is given, which first removes every file of the old run.
// We chose refusing over building the new run elsewhere and swapping it in
// at its first checkpoint: a swap cannot be one atomic step while the lock
// lives inside the folder being swapped, a run that fails before its first
// checkpoint would still have to be cleaned up, and a refusal leaves the old
// results untouched until the user says otherwise. With --force the folder
// holds only the new run's files, complete or not, never a mixture: `eval`
// can no longer pick up an old model.safetensors beside a new train.jsonl.
// Files Plastic did not write are never removed; a folder holding any is
// refused even with --force. --resume continues from the newest checkpoint;
// a run that stopped before its first one (killed, a full disk) starts
// again, but a finished run whose checkpoints are gone is refused. Stale
// temporaries of a writer killed mid-write are removed.
#pragma once

#include <filesystem>

#include "runtime/app/app_error.h"
#include "runtime/io/run_lock.h"

namespace plastic::rt {

/// Locks `dir` (creating it) and makes it ready for a run: a new one
/// (`resume` false) needs it empty or `force`; --resume continues what is
/// there. Exit code 1 for a folder in use or unreadable, 2 for one that
/// needs --force or --resume.
Result<RunLock, AppError> take_run_folder(const std::filesystem::path& dir, bool resume,
                                          bool force);

} // namespace plastic::rt
